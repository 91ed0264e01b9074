"""The translator page at `/`, driven by a real Chromium against the app over the engine
double: what a person types, clicks and reads."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.fakes import FakeEngine, fake_translator
from tests.support.harness import eventually_sync
from tests.support.page_server import serve

SCREENSHOTS = Path(__file__).parents[2] / "docs" / "images"
TOKEN_DELAY = 0.05  # slow enough to watch a translation arrive in pieces
MAX_TEXT_CHARS = 500


@pytest.fixture(scope="module")
def site_engine() -> FakeEngine:
    return FakeEngine(token_delay=TOKEN_DELAY)


@pytest.fixture(scope="module")
def site(site_engine: FakeEngine) -> Iterator[str]:
    with serve(site_engine, max_text_chars=MAX_TEXT_CHARS) as base:
        yield base


def open_page(page: Any, base: str) -> Any:
    page.goto(f"{base}/")
    page.wait_for_selector("body[data-ready=true]")
    return page


def translated(page: Any) -> str:
    """Waits for the translation to finish; its text."""
    page.wait_for_function(
        "document.querySelector('#result').getAttribute('aria-busy') === "
        "'false' && document.querySelector('#result-info').textContent "
        ".includes('tokens')"
    )
    return page.inner_text("#result")


def last_prompt(engine: FakeEngine) -> str:
    return engine.decode(engine.requests[-1][1])


def test_translation_streams_into_the_result_pane(page: Any, site: str) -> None:
    open_page(page, site)
    text = "The quick brown fox jumps over the lazy dog near the river bank today."
    page.fill("#source-text", text)
    page.select_option("#target-lang", "de")
    with page.expect_request("**/translate") as sent:
        page.click("#translate")
    assert sent.value.post_data_json == {
        "text": text,
        "source_lang": "auto",
        "target_lang": "de",
        "formality": "default",
        "format": "text",
        "stream": True,
    }
    # Part of the translation is shown while the rest is still being generated.
    page.wait_for_function(
        "document.querySelector('#result').getAttribute('aria-busy') === "
        "'true' && document.querySelector('#result').textContent.length > 0"
    )
    partial = page.inner_text("#result")
    assert partial and text.upper().startswith(partial.strip())
    assert page.is_enabled("#stop")
    assert translated(page) == text.upper()
    info = page.inner_text("#result-info")
    assert "Translated from English (detected)" in info
    assert page.is_enabled("#copy")
    assert page.is_disabled("#stop")
    assert page.get_attribute("#result", "aria-live") == "polite"


def test_detect_shows_the_language_and_how_sure(page: Any, site: str) -> None:
    open_page(page, site)
    page.fill("#source-text", "Guten Morgen, wie geht es dir heute? Das Wetter ist schön.")
    page.click("#detect")
    page.wait_for_selector("#detected:has-text('%')")
    assert re.fullmatch(r"Detected: German \(\d+% sure\)", page.inner_text("#detected"))
    assert page.inner_text("#source-lang option[value=auto]") == "Detect language: German"


def test_swap_turns_languages_and_texts_around(page: Any, site: str) -> None:
    open_page(page, site)
    page.click("#swap")  # nothing detected yet: nothing to swap into the target
    assert "Detect the source language first" in page.inner_text("#error")
    page.fill("#source-text", "Good evening, my friends, and welcome to the show.")
    page.select_option("#target-lang", "fr")
    page.click("#translate")
    result = translated(page)
    page.click("#swap")
    assert page.input_value("#source-lang") == "fr"
    assert page.input_value("#target-lang") == "en"
    assert page.input_value("#source-text") == result
    assert page.inner_text("#result") == ""
    assert page.is_hidden("#error")


def test_glossary_and_formality_are_sent_and_remembered(
    page: Any, site: str, site_engine: FakeEngine
) -> None:
    open_page(page, site)
    page.click("#options summary")
    page.select_option("#formality", "formal")
    page.fill("#glossary-rows tr:nth-child(1) .term", "river")
    page.fill("#glossary-rows tr:nth-child(1) .translation", "Fluss")
    page.click("#glossary-add")
    assert page.evaluate("document.activeElement.classList.contains('term')")
    page.keyboard.type("bank")
    page.fill("#glossary-rows tr:nth-child(2) .translation", "Ufer")
    page.fill("#source-text", "We walked along the river bank.")
    with page.expect_request("**/translate") as sent:
        page.click("#translate")
    body = sent.value.post_data_json
    assert body["glossary"] == {"river": "Fluss", "bank": "Ufer"}
    assert body["formality"] == "formal"
    translated(page)
    prompt = last_prompt(site_engine)
    assert "Fluss" in prompt and "Ufer" in prompt
    # A row can be removed; the last choices survive a reload.
    page.click("#glossary-rows tr:nth-child(2) .remove")
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    assert page.input_value("#formality") == "formal"
    assert page.input_value("#glossary-rows tr:nth-child(1) .term") == "river"
    assert page.locator("#glossary-rows tr").count() == 1
    assert page.input_value("#source-text") == ""  # the text itself is not stored


def test_html_mode_keeps_tags_and_shows_them_as_text(page: Any, site: str) -> None:
    open_page(page, site)
    page.click("#options summary")
    page.check("#html-mode")
    page.fill("#source-text", "<p>Hello <b>world</b>, nice to see you.</p>")
    with page.expect_request("**/translate") as sent:
        page.click("#translate")
    assert sent.value.post_data_json["format"] == "html"
    assert translated(page) == "<p>HELLO <b>WORLD</b>, NICE TO SEE YOU.</p>"
    # The markup is shown, never rendered into the page.
    assert page.locator("#result b").count() == 0


def test_character_count_and_the_servers_limit(page: Any, site: str) -> None:
    open_page(page, site)
    page.fill("#source-text", "é" * 12)
    assert page.inner_text("#char-count") == f"12 / {MAX_TEXT_CHARS}"
    page.fill("#source-text", "x" * (MAX_TEXT_CHARS + 1))
    assert page.get_attribute("#char-count", "class") == "count over"
    page.click("#translate")
    assert f"longer than this server's limit of {MAX_TEXT_CHARS}" in page.inner_text("#error")
    assert page.inner_text("#result") == ""


def test_stop_ends_the_translation_and_keeps_what_arrived(page: Any, site: str) -> None:
    open_page(page, site)
    text = " ".join(f"word{i}" for i in range(60))
    page.fill("#source-text", text)
    page.click("#translate")
    page.wait_for_function("document.querySelector('#result').textContent.length > 0")
    page.click("#stop")
    page.wait_for_selector("#result-info:has-text('Stopped.')")
    kept = page.inner_text("#result")
    assert kept and len(kept) < len(text)
    assert page.is_enabled("#translate")


def test_keyboard_only(page: Any, site: str) -> None:
    open_page(page, site)
    order = []
    for _ in range(14):
        page.keyboard.press("Tab")
        order.append(
            page.evaluate(
                "document.activeElement.id || document.activeElement.tagName.toLowerCase()"
            )
        )
    expected = [
        "source-lang",
        "swap",
        "target-lang",
        "source-text",
        "detect",
        "translate",
        "result",
        "summary",
    ]
    positions = [order.index(name) for name in expected]
    assert positions == sorted(positions), order
    # Type and translate without the mouse.
    page.focus("#source-text")
    page.keyboard.type("Keyboards are enough.")
    page.keyboard.press("Control+Enter")
    assert translated(page) == "KEYBOARDS ARE ENOUGH."
    assert page.evaluate("document.activeElement.id") == "source-text"


@pytest.mark.parametrize("modifier", ["Control", "Meta"])
def test_ctrl_or_cmd_enter_in_the_text_translates(page: Any, site: str, modifier: str) -> None:
    open_page(page, site)
    text = "Two lines of text.\nBoth are sent."
    page.fill("#source-text", text)
    with page.expect_request("**/translate") as sent:
        page.keyboard.press(f"{modifier}+Enter")
    assert sent.value.post_data_json["text"] == text
    assert translated(page) == text.upper()
    # The shortcut adds no line to the text, and the cursor stays in it.
    assert page.input_value("#source-text") == text
    assert page.evaluate("document.activeElement.id") == "source-text"


def test_plain_enter_in_the_text_starts_a_new_line_and_does_not_translate(
    page: Any, site: str
) -> None:
    open_page(page, site)
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.focus("#source-text")
    page.keyboard.type("First line.")
    page.keyboard.press("Enter")
    page.keyboard.type("Second line.")
    assert page.input_value("#source-text") == "First line.\nSecond line."
    # A translation would have begun at once: the button disabled, the pane busy.
    assert page.is_enabled("#translate")
    assert page.get_attribute("#result", "aria-busy") == "false"
    assert page.inner_text("#result") == "" and page.inner_text("#result-info") == ""
    assert not [url for url in requests if url.endswith("/translate")]


# Records what the page writes to the clipboard instead of writing it (headless Chromium
# grants no clipboard permission here): each text in window.copiedTexts.
CLIPBOARD_RECORDER = """
window.copiedTexts = [];
navigator.clipboard.writeText = (text) => {
  window.copiedTexts.push(text);
  return Promise.resolve();
};
"""


def test_copy_puts_exactly_the_translation_on_the_clipboard(page: Any, site: str) -> None:
    page.add_init_script(CLIPBOARD_RECORDER)
    open_page(page, site)
    assert page.is_disabled("#copy")  # nothing to copy yet
    page.fill("#source-text", "Copy me, please.\nAll of it.")
    page.click("#translate")
    assert translated(page) == "COPY ME, PLEASE.\nALL OF IT."
    page.click("#copy")
    page.wait_for_selector("#result-info:has-text('Copied.')")
    assert page.inner_text("#result-info") == "Copied."
    assert page.evaluate("window.copiedTexts") == ["COPY ME, PLEASE.\nALL OF IT."]


def test_overload_shows_the_servers_message_and_a_retry_countdown(page: Any, served: Any) -> None:
    engine = FakeEngine()
    engine.hang = True  # the one slot stays taken until the test lets it go
    base = served(engine, max_num_seqs=1, max_queued_requests=0)
    open_page(page, base)
    holder = threading.Thread(
        target=httpx.post,
        args=(f"{base}/translate",),
        kwargs={"json": {"text": "hold the slot", "target_lang": "de"}, "timeout": 30},
    )
    holder.start()
    try:
        eventually_sync(  # the holder has the slot
            engine.unfinished_requests,
            every=0.02,
            failure=lambda: "the slot-holding request never arrived",
        )
        page.fill("#source-text", "Is anyone there?")
        with page.expect_response("**/translate") as answered:
            page.click("#translate")
        response = answered.value
        assert response.status == 503
        seconds = int(response.headers["retry-after"])
        message = response.json()["error"]["message"]
        assert page.inner_text("#error-message") == message
        assert page.inner_text("#retry") == f"Try again in {seconds} s."
        page.wait_for_selector(
            "#retry:has-text('You can try again now.')", timeout=(seconds + 3) * 1000
        )
        assert page.inner_text("#result") == ""
    finally:
        engine.hang = False
        holder.join(timeout=30)


def test_an_engine_failure_mid_stream_is_shown_after_the_partial_text(
    page: Any, served: Any
) -> None:
    engine = FakeEngine(token_delay=0.01)
    engine.fail_after_tokens = 3
    open_page(page, served(engine))
    page.fill("#source-text", "One two three four five six seven eight.")
    page.click("#translate")
    page.wait_for_selector("#error:not([hidden])")
    assert page.inner_text("#error-message")
    assert page.inner_text("#result").startswith("ONE")
    assert page.is_enabled("#translate")


def play_stream(page: Any, site: str, events: list[dict[str, Any]]) -> None:
    """The page opened, with /translate answering these events as a stream."""
    body = "".join(f"data: {json.dumps(event)}\n\n" for event in events) + "data: [DONE]\n\n"
    page.route(
        "**/translate",
        lambda route: route.fulfill(
            status=200, headers={"content-type": "text/event-stream"}, body=body
        ),
    )
    open_page(page, site)


def test_warnings_in_the_final_event_are_listed(page: Any, site: str) -> None:
    # Warnings the page has no words for (free text, or objects with a message) are shown
    # as they come: play such a stream.
    events = [
        {"delta": "Hallo"},
        {"delta": " Welt"},
        {
            "delta": "",
            "finish_reason": "stop",
            "source_lang": "en",
            "usage": {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11},
            "warnings": [
                "The translation may be incomplete.",
                {"code": "untranslated", "message": "Some text was copied."},
            ],
        },
    ]
    play_stream(page, site, events)
    page.fill("#source-text", "Hello world")
    page.click("#translate")
    assert translated(page) == "Hallo Welt"
    assert page.locator("#warnings li").all_inner_texts() == [
        "The translation may be incomplete.",
        "Some text was copied.",
    ]


def test_completeness_and_deadline_warnings_are_said_in_words(page: Any, site: str) -> None:
    events = [
        {"delta": "Hallo"},
        {
            "delta": "",
            "finish_reason": "partial",
            "source_lang": "en",
            "usage": {"prompt_tokens": 9, "completion_tokens": 1, "total_tokens": 10},
            "warnings": ["omission", "deadline_exceeded", "unsupported_target_language"],
        },
    ]
    play_stream(page, site, events)
    page.fill("#source-text", "Hello world. How are you?")
    page.click("#translate")
    assert translated(page) == "Hallo"
    assert page.locator("#warnings li").all_inner_texts() == [
        "Part of the text may be missing from the translation.",
        "Time ran out: part of the text is left untranslated.",
        "The model does not write this language well.",
    ]


def test_the_quality_guards_warnings_are_said_in_words(page: Any, served: Any) -> None:
    # The real guard: the engine double's answer is the source upper-cased, which it rightly
    # calls an echo (a stream is checked when it ends, never retried).
    engine = FakeEngine()
    open_page(page, served(engine, quality_guard=True))
    page.fill("#source-text", "Good morning to all of you, dear friends.")
    page.click("#translate")
    assert translated(page) == "GOOD MORNING TO ALL OF YOU, DEAR FRIENDS."
    page.wait_for_selector("#warnings:not([hidden])")
    assert page.locator("#warnings li").all_inner_texts() == [
        "This may be the source text sent back, not a translation."
    ]


def _losing_unmasked_placeholders(prompt: str, options: Any) -> str:
    # A German "translation" that drops a printf placeholder it sees, but keeps the guard's
    # mask (`{1}`): what a small model does, and what masking is for.
    text = fake_translator(prompt, options)
    text = text.replace("GOOD MORNING", "Guten Morgen").replace("WELCOME BACK", "willkommen zurück")
    return text.replace(" %S", "")


def test_a_stream_with_warnings_is_translated_again_under_the_guard(page: Any, served: Any) -> None:
    engine = FakeEngine(responder=_losing_unmasked_placeholders)
    open_page(page, served(engine, quality_guard=True))
    page.fill("#source-text", "Good morning %s, welcome back.")
    page.click("#translate")
    # Streamed: the placeholder is lost (a warning); asked again without streaming, the
    # guard masks it and the answer keeps it, so it replaces the streamed one.
    assert translated(page) == "Guten Morgen %s, willkommen zurück."
    assert page.is_hidden("#warnings")
    assert "checked again" in page.inner_text("#result-info")
    assert len(engine.requests) == 2


def test_api_key_is_asked_for_and_kept_in_the_tab_only(page: Any, served: Any) -> None:
    base = served(FakeEngine(), api_key=["s3cret"])
    page.goto(f"{base}/")  # the page and its assets need no key
    dialog = page.locator("#key-dialog")
    dialog.wait_for(state="visible")
    assert page.evaluate("document.activeElement.id") == "key-input"
    page.keyboard.press("Escape")  # not now: the page says what it needs
    page.wait_for_selector("#error-message:has-text('This server needs an API key')")
    page.click("#key-button")
    dialog.wait_for(state="visible")
    page.keyboard.type("wrong")
    page.keyboard.press("Enter")
    page.wait_for_selector("#key-reason:has-text('not accepted')")
    page.fill("#key-input", "s3cret")
    page.keyboard.press("Enter")
    page.wait_for_selector("body[data-ready=true]")
    assert page.is_visible("#key-button")
    page.fill("#source-text", "Keys stay in the tab.")
    with page.expect_request("**/translate") as sent:
        page.click("#translate")
    assert sent.value.headers["authorization"] == "Bearer s3cret"
    assert translated(page) == "KEYS STAY IN THE TAB."
    assert page.evaluate("sessionStorage.getItem('translate-server.api-key')") == "s3cret"
    assert "s3cret" not in page.evaluate("JSON.stringify(localStorage)")


SHOWN = (
    "Paste a text, pick a language and read the translation as it is written. "
    "Nobody needs curl for that."
)
# A canned answer for the picture: the engine double's own is the text in capitals.
SHOWN_TRANSLATION = (
    "Text einfügen, Sprache wählen und die Übersetzung lesen, während sie "
    "entsteht. Dafür braucht niemand curl."
)


def test_screenshots(page: Any, served: Any) -> None:
    """The picture of the page in docs/translator-page.md, and one at phone width."""
    engine = FakeEngine(responder=lambda prompt, options: SHOWN_TRANSLATION)
    open_page(page, served(engine))
    page.select_option("#target-lang", "de")
    page.fill("#source-text", SHOWN)
    page.click("#options summary")
    page.fill("#glossary-rows tr:nth-child(1) .term", "translation")
    page.fill("#glossary-rows tr:nth-child(1) .translation", "Übersetzung")
    page.click("#translate")
    assert translated(page) == SHOWN_TRANSLATION
    page.mouse.move(0, 0)  # no hover effect in the picture
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / "translator-page.png", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    # Nothing wider than the phone: no sideways scrolling.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=SCREENSHOTS / "translator-page-phone.png", full_page=True)


# Contrast of text against the first opaque background behind it (WCAG 2 relative luminance).
CONTRASTS = """() => {
  const rgb = (c) => c.match(/[\\d.]+/g).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => {
    v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  }).reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
  const background = (el) => {
    for (; el; el = el.parentElement) {
      const c = rgb(getComputedStyle(el).backgroundColor);
      if (c.length < 4 || c[3] === 1) return c;
    }
    return [255, 255, 255];
  };
  const out = {};
  for (const el of document.querySelectorAll("label, button:enabled, a, p, span, li, legend, "
                                             + "summary, th, select, textarea, #result")) {
    if (!el.offsetParent || !el.textContent.trim() && !el.value) continue;
    const [a, b] = [lum(rgb(getComputedStyle(el).color)), lum(background(el))];
    out[el.id || el.textContent.trim().slice(0, 30)] =
      (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  }
  return out;
}"""


def test_every_control_is_labelled_and_text_has_contrast(page: Any, site: str) -> None:
    open_page(page, site)
    page.click("#options summary")
    page.fill("#source-text", "Hello there, general.")
    page.click("#translate")
    translated(page)
    page.fill("#source-text", "")
    page.click("#detect")  # nothing to detect: an error message shows too
    assert page.is_visible("#error")
    unlabelled = page.evaluate("""() => [...document.querySelectorAll(
        "input, select, textarea, button, [tabindex]")].filter((el) => el.offsetParent &&
        !(el.labels && el.labels.length) && !el.getAttribute("aria-label") &&
        !el.getAttribute("aria-labelledby") && !el.textContent.trim()).map((el) => el.outerHTML)""")
    assert unlabelled == []
    low = {name: round(ratio, 2) for name, ratio in page.evaluate(CONTRASTS).items() if ratio < 4.5}
    assert low == {}


@pytest.mark.parametrize(
    ("estimate", "needs_review", "band", "label"),
    [
        (0.91, False, "good", "Likely good · 0.91"),
        (0.62, False, "fair", "Probably fine · 0.62"),
        (0.18, True, "review", "Needs review · 0.18"),
    ],
)
def test_the_quality_estimate_is_a_colour_with_a_tooltip(
    page: Any, site: str, estimate: float, needs_review: bool, band: str, label: str
) -> None:
    events = [
        {"delta": "Hallo Welt"},
        {
            "delta": "",
            "finish_reason": "stop",
            "source_lang": "en",
            "usage": {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11},
            "quality_estimate": estimate,
            "needs_review": needs_review,
        },
    ]
    play_stream(page, site, events)
    page.fill("#source-text", "Hello world")
    page.click("#translate")
    assert translated(page) == "Hallo Welt"
    badge = page.locator("#quality")
    assert badge.is_visible() and badge.inner_text() == label
    assert page.get_attribute("#result", "data-quality") == band
    tooltip = badge.get_attribute("title") or ""
    assert "how sure the model was of each word" in tooltip
    # The colour is the translation's own border: a different one per band.
    colour = page.eval_on_selector("#result", "e => getComputedStyle(e).borderLeftColor")
    assert colour == page.eval_on_selector("#quality", "e => getComputedStyle(e).color")


def test_the_servers_estimate_is_shown_and_cleared_for_the_next_text(
    page: Any, served: Any
) -> None:
    engine = FakeEngine()  # its answers are the source upper-cased: echoes to the guard
    open_page(page, served(engine, quality_guard=True))
    page.fill("#source-text", "Good morning to all of you, dear friends.")
    page.click("#translate")
    translated(page)
    page.wait_for_selector("#quality:not([hidden])")
    assert page.get_attribute("#result", "data-quality") == "review"  # an echo needs review
    assert page.inner_text("#quality").startswith("Needs review · ")
    page.route("**/translate", lambda route: route.abort())
    page.fill("#source-text", "Another text.")
    page.click("#translate")
    page.wait_for_selector("#quality", state="hidden")
    assert page.get_attribute("#result", "data-quality") is None
