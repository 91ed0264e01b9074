"""The page closes the loop, in a real Chromium: a translation memory and a stored glossary are
chosen for the text and for a file, a translation is corrected in place and saved to the
memory, and the same text sent again is then that memory's exact match. By keyboard alone and
at phone width too. The screenshots of the loop are written to $TRANSLATE_SCREENSHOTS_DIR
where it is set."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx

from tests.browser.test_translator_page import open_page, play_stream, translated
from tests.browser.test_translator_page_documents import RECORD_FORMS, choose, finished
from tests.support.fakes import FakeEngine

SOURCE = "The printer is out of paper."
MACHINE = SOURCE.upper()  # the engine double's answer
CORRECTED = "Der Drucker hat kein Papier mehr."
SCREENSHOTS_ENV = "TRANSLATE_SCREENSHOTS_DIR"


def resources(base: str) -> tuple[str, str]:
    """A memory and a stored glossary made over the API, as a team would before opening the
    page: their ids."""
    with httpx.Client(base_url=base, timeout=30) as client:
        memory = client.post("/memories", json={"name": "product"}).json()["id"]
        glossary = client.post(
            "/glossaries",
            json={
                "name": "terms",
                "source_lang": "en",
                "target_lang": "de",
                "entries": {"printer": "Drucker"},
            },
        )
        assert glossary.status_code in (200, 201), glossary.text
        return memory, glossary.json()["id"]


def entries(base: str, memory: str) -> list[dict[str, Any]]:
    with httpx.Client(base_url=base, timeout=30) as client:
        return client.get(f"/memories/{memory}/entries").json()["data"]


def chosen(page: Any, memory: str, glossary: str) -> None:
    page.select_option("#target-lang", "de")
    page.select_option("#source-lang", "en")
    page.select_option("#memory", memory)
    page.select_option("#glossary-id", glossary)


def screenshot(page: Any, name: str) -> None:
    folder = os.environ.get(SCREENSHOTS_ENV)
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.mouse.move(0, 0)  # no hover effect in the picture
        page.screenshot(path=Path(folder) / name, full_page=True)


def test_a_correction_becomes_the_exact_match(page: Any, served: Any) -> None:
    engine = FakeEngine()
    base = served(engine)
    memory, glossary = resources(base)
    open_page(page, base)
    assert page.locator("#memory option").all_inner_texts() == [
        "No memory",
        "product (0 entries)",
        "New memory\u2026",
    ]
    chosen(page, memory, glossary)
    page.fill("#source-text", SOURCE)
    with page.expect_request("**/translate") as sent:
        page.click("#translate")
    body = sent.value.post_data_json
    assert (body["memory"], body["glossary_id"]) == (memory, glossary)
    assert translated(page) == MACHINE
    assert "Drucker" in engine.decode(engine.requests[-1][1])  # the stored glossary's term
    asked = len(engine.requests)

    page.click("#edit")
    assert page.is_visible("#result-edit") and page.is_hidden("#result")
    assert page.input_value("#result-edit") == MACHINE
    page.fill("#result-edit", CORRECTED)
    screenshot(page, "loop-1-editing-desktop.png")
    with page.expect_request("**/translate/corrections") as saved:
        page.click("#save-correction")
    assert saved.value.post_data_json == {
        "source": SOURCE,
        "translation": MACHINE,
        "corrected": CORRECTED,
        "source_lang": "en",
        "target_lang": "de",
        "memory": memory,
    }
    page.wait_for_selector("#memory-status.saved")
    assert "saved to \u201cproduct\u201d" in page.inner_text("#memory-status")
    assert page.inner_text("#result") == CORRECTED
    assert page.evaluate("document.activeElement.id") == "edit"
    assert page.locator("#memory option:checked").inner_text() == "product (1 entry)"
    assert [(e["source"], e["target"]) for e in entries(base, memory)] == [(SOURCE, CORRECTED)]
    screenshot(page, "loop-2-saved-desktop.png")

    # The same request again: answered from the memory, the engine not asked.
    page.click("#translate")
    assert translated(page) == CORRECTED
    assert page.inner_text("#result-info .match") == "Exact memory match"
    assert len(engine.requests) == asked
    screenshot(page, "loop-3-exact-match-desktop.png")


def test_the_loop_by_keyboard_and_at_phone_width(page: Any, served: Any) -> None:
    engine = FakeEngine()
    base = served(engine)
    memory, glossary = resources(base)
    page.set_viewport_size({"width": 390, "height": 844})
    open_page(page, base)
    chosen(page, memory, glossary)
    page.focus("#source-text")
    page.keyboard.type(SOURCE)
    page.keyboard.press("Control+Enter")
    assert translated(page) == MACHINE
    # From the result, Tab reaches the quality badge (its explanation, for the keyboard too),
    # then Edit; Enter opens the correction.
    page.focus("#copy")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "quality"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "edit"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "result-edit"
    page.keyboard.type(" Nein.")
    page.keyboard.press("Escape")  # cancelled: nothing saved, the focus back on Edit
    assert page.is_hidden("#result-edit") and page.inner_text("#result") == MACHINE
    assert page.evaluate("document.activeElement.id") == "edit"
    assert entries(base, memory) == []

    page.keyboard.press("Enter")
    page.keyboard.press("Control+a")
    page.keyboard.type(CORRECTED)
    # Nothing wider than the phone while editing: no sideways scrolling.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.locator("#save-correction").bounding_box()["width"] > 60
    screenshot(page, "loop-1-editing-phone.png")
    with page.expect_request("**/translate/corrections"):
        page.keyboard.press("Control+Enter")  # in the correction, it saves
    page.wait_for_selector("#memory-status.saved")
    assert [e["target"] for e in entries(base, memory)] == [CORRECTED]
    screenshot(page, "loop-2-saved-phone.png")
    page.focus("#source-text")
    page.keyboard.press("Control+Enter")
    assert translated(page) == CORRECTED
    assert page.inner_text("#result-info .match") == "Exact memory match"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "loop-3-exact-match-phone.png")


def test_saving_without_a_memory_asks_for_one(page: Any, served: Any) -> None:
    open_page(page, served(FakeEngine()))
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.select_option("#target-lang", "de")
    page.fill("#source-text", "Hello.")
    page.click("#translate")
    translated(page)
    page.click("#edit")
    page.fill("#result-edit", "Hallo.")
    page.click("#save-correction")
    assert "Choose a translation memory" in page.inner_text("#memory-status")
    assert not [url for url in requests if url.endswith("/translate/corrections")]
    assert page.is_visible("#result-edit")  # the correction is kept until saved
    # A fresh server has none to choose: the page offers to make one, chosen once made.
    assert page.evaluate("document.activeElement.id") == "memory-offer"
    page.keyboard.press("Enter")
    page.keyboard.type("first")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "document.querySelector('#memory').selectedOptions[0].text === 'first (0 entries)'"
    )
    assert page.evaluate("document.activeElement.id") == "memory"
    page.click("#save-correction")
    page.wait_for_selector("#memory-status.saved")
    assert "saved to \u201cfirst\u201d" in page.inner_text("#memory-status")


def test_a_text_with_warnings_is_marked(page: Any, served: Any) -> None:
    events = [
        {"delta": "Hallo"},
        {
            "delta": "",
            "finish_reason": "stop",
            "source_lang": "en",
            "usage": {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11},
            "warnings": ["echo", "omission"],
        },
    ]
    play_stream(page, served(FakeEngine()), events)
    page.fill("#source-text", "Hello there")
    page.click("#translate")
    assert translated(page) == "Hallo"
    result = page.locator("#result")
    assert "warned" in (result.get_attribute("class") or "")
    assert result.get_attribute("aria-label") == "Translation, with 2 warnings"
    assert page.locator("#warnings li").count() == 2


def test_a_file_uses_the_chosen_memory_and_glossary(page: Any, served: Any) -> None:
    engine = FakeEngine()
    base = served(engine)
    memory, glossary = resources(base)
    with httpx.Client(base_url=base, timeout=30) as client:
        client.post(
            f"/memories/{memory}/entries",
            json={"source": SOURCE, "target": CORRECTED, "source_lang": "en", "target_lang": "de"},
        )
    open_page(page, base)
    chosen(page, memory, glossary)
    page.evaluate(RECORD_FORMS)
    choose(page, "notes.txt", f"{SOURCE}\n\nThe printer is new.\n".encode())
    page.click("#document-translate")
    finished(page)
    sent = page.evaluate("window.sentForms")[0]
    assert (sent["memory"], sent["glossary_id"]) == (memory, glossary)
    with page.expect_download() as downloaded:
        page.click("#document-download")
    text = Path(downloaded.value.path()).read_text()
    assert text.startswith(CORRECTED)  # the memory's exact match
    assert "THE PRINTER IS NEW." in text
    prompts = [engine.decode(ids) for _, ids, _ in engine.requests]
    assert all(SOURCE not in prompt for prompt in prompts)
    assert any("Drucker" in prompt for prompt in prompts)  # the glossary's term


def test_an_api_keys_own_memories_are_listed(page: Any, served: Any) -> None:
    base = served(FakeEngine(), api_key=["alice", "bob"])
    with httpx.Client(base_url=base, timeout=30) as client:
        for key, name in (("alice", "alice's"), ("bob", "bob's")):
            client.post(
                "/memories", json={"name": name}, headers={"authorization": f"Bearer {key}"}
            )
    page.add_init_script("sessionStorage.setItem('translate-server.api-key', 'bob')")
    open_page(page, base)
    assert page.locator("#memory option").all_inner_texts() == [
        "No memory",
        "bob's (0 entries)",
        "New memory\u2026",
    ]
    # The memories panel too lists the key's own alone.
    assert page.locator("#memories-pick option").all_text_contents() == ["bob's (0 entries)"]
    assert page.is_visible("#glossary-id")
