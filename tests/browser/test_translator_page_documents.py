"""The translator page's file panel, in a real Chromium against the app over the engine double
(which upper-cases what it translates): choose or drop a file, follow its progress, download
the translation."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import srt

from tests.support.fakes import FakeEngine

LINES = [
    "Good morning, everyone.",
    "Welcome to the talk.",
    "Today we speak about rivers.",
    "Rivers carry water to the sea.",
    "Some are long, some are short.",
    "The longest one is in Africa.",
    "Boats travel on many of them.",
    "Fish live in their water.",
    "People drink from them too.",
    "Bridges cross them in cities.",
    "Thank you for listening.",
    "Goodbye.",
]
SRT = "".join(
    f"{i}\n00:00:{2 * i:02},000 --> 00:00:{2 * i + 1:02},500\n{line}\n\n"
    for i, line in enumerate(LINES, 1)
).encode()
SUPPORTED = [".srt", ".txt", ".docx"]  # some of what the server lists


def open_page(page: Any, base: str) -> Any:
    page.goto(f"{base}/")
    page.wait_for_selector("body[data-ready=true]")
    return page


def choose(page: Any, name: str, data: bytes) -> None:
    page.set_input_files(
        "#document-file", {"name": name, "mimeType": "application/octet-stream", "buffer": data}
    )


def drop(page: Any, name: str, data: bytes) -> None:
    """Drops a file onto the panel as a person dragging it from their desktop would."""
    page.evaluate(
        """([name, bytes]) => {
        const dropped = new DataTransfer();
        dropped.items.add(new File([new Uint8Array(bytes)], name));
        const section = document.getElementById("documents");
        for (const type of ["dragenter", "dragover", "drop"]) {
          section.dispatchEvent(new DragEvent(type, {dataTransfer: dropped, bubbles: true,
                                                     cancelable: true}));
        }
    }""",
        [name, list(data)],
    )


def finished(page: Any) -> None:
    page.wait_for_selector("#document-done:not([hidden]), #document-error:not([hidden])")


# Playwright cannot show a multipart body with a file in it: the page's forms are read as sent.
RECORD_FORMS = """() => {
    window.sentForms = [];
    const fetch_ = window.fetch;
    window.fetch = (url, options = {}) => {
      if (options.body instanceof FormData) {
        window.sentForms.push(Object.fromEntries([...options.body.entries()].map(
          ([name, value]) => [name, typeof value === "string" ? value : `file:${value.name}`])));
      }
      return fetch_(url, options);
    };
}"""


def test_a_subtitle_file_is_translated_and_downloaded(page: Any, served: Any) -> None:
    engine = FakeEngine(token_delay=0.02)
    open_page(page, served(engine))
    page.select_option("#target-lang", "de")
    page.click("#options summary")
    page.select_option("#formality", "formal")
    page.fill("#glossary-rows tr:nth-child(1) .term", "rivers")
    page.fill("#glossary-rows tr:nth-child(1) .translation", "Flüsse")
    # Every value the progress text takes, to check it only ever moves forward.
    page.evaluate("""() => {
        window.progressSeen = [];
        const text = document.getElementById("document-progress-text");
        new MutationObserver(() => window.progressSeen.push(text.textContent))
          .observe(text, {childList: true, characterData: true, subtree: true});
    }""")
    page.evaluate(RECORD_FORMS)
    choose(page, "talk.srt", SRT)
    page.focus("#document-translate")
    with page.expect_request("**/translate/document") as sent:
        page.keyboard.press("Enter")
    assert sent.value.headers["content-type"].startswith("multipart/form-data")
    assert page.evaluate("window.sentForms") == [
        {
            "file": "file:talk.srt",
            "target_lang": "de",
            "source_lang": "auto",
            "formality": "formal",
            "glossary": '{"rivers":"Flüsse"}',
        }
    ]
    finished(page)
    assert page.is_hidden("#document-error")
    total = len(LINES)
    assert page.inner_text("#document-progress-text") == f"{total} of {total} segments"
    progress = page.get_by_role("progressbar", name="Progress of talk.srt")
    assert progress.get_attribute("value") == progress.get_attribute("max") == str(total)
    counts = [
        int(found.group(1))
        for seen in page.evaluate("window.progressSeen")
        if (found := re.match(r"(\d+) of", seen))
    ]
    assert counts == sorted(counts) and counts[-1] == total
    assert (
        page.inner_text("#document-billed")
        == f"{sum(len(line) for line in LINES)} characters billed"
    )
    assert "Flüsse" in "".join(engine.decode(ids) for _, ids, _ in engine.requests)
    # The link downloads the translation under the file's name with the target language.
    link = page.locator("#document-download")
    assert link.inner_text() == "Download talk.de.srt"
    link.focus()
    with page.expect_download() as downloaded:
        page.keyboard.press("Enter")
    assert downloaded.value.suggested_filename == "talk.de.srt"
    cues = list(srt.parse(Path(downloaded.value.path()).read_text()))
    originals = list(srt.parse(SRT.decode()))
    assert [(cue.index, cue.start, cue.end) for cue in cues] == [
        (cue.index, cue.start, cue.end) for cue in originals
    ]
    assert [cue.content for cue in cues] == [line.upper() for line in LINES]
    # At phone width the panel, its progress and its link fit: no sideways scrolling.
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.locator("#document-progress").bounding_box()["width"] > 150


def test_the_page_refuses_what_the_server_would_before_uploading(page: Any, served: Any) -> None:
    open_page(page, served(FakeEngine(), max_document_bytes=200))
    uploads = []
    page.on(
        "request",
        lambda request: (
            uploads.append(request.url) if request.url.endswith("/translate/document") else None
        ),
    )
    hint = page.inner_text("#document-hint")
    assert "Files up to 200 bytes of these types:" in hint
    assert all(extension in hint for extension in SUPPORTED)
    drop(page, "setup.exe", b"MZ\x90\x00")
    message = page.inner_text("#document-error-message")
    assert message.startswith("Files of type .exe cannot be translated here. Supported types:")
    assert all(extension in message for extension in SUPPORTED)
    assert page.is_disabled("#document-translate")
    choose(page, "long.txt", b"Too long. " * 30)
    assert (
        page.inner_text("#document-error-message")
        == "long.txt has 300 bytes; this server takes files up to 200 bytes."
    )
    assert page.is_disabled("#document-translate")
    # A file that fits is taken from a drop too, its button ready for the keyboard.
    drop(page, "short.txt", b"Fits.")
    assert page.is_hidden("#document-error")
    assert page.evaluate("document.activeElement.id") == "document-translate"
    assert page.evaluate("document.getElementById('document-file').files[0].name") == "short.txt"
    assert uploads == []


def test_the_servers_refusals_are_shown(page: Any, served: Any) -> None:
    open_page(page, served(FakeEngine(), max_document_chars=20))
    # No extension: the page cannot tell, the server looks inside and refuses (400); the
    # text to translate is counted by the server only (413).
    for name, data, status in (
        ("blob", b"\x00\x01binary\x00" * 10, 400),
        ("long.txt", b"More than twenty characters to translate.", 413),
    ):
        choose(page, name, data)
        with page.expect_response("**/translate/document") as answered:
            page.click("#document-translate")
        assert answered.value.status == status
        page.wait_for_selector("#document-error:not([hidden])")
        assert (
            page.inner_text("#document-error-message") == answered.value.json()["error"]["message"]
        )
        assert page.is_hidden("#document-status") and page.is_hidden("#document-done")
        assert page.is_enabled("#document-translate")


def test_overload_shows_a_retry_countdown_in_the_panel(page: Any, served: Any) -> None:
    # The server's 503 while draining or overloaded, played: its engine is not involved.
    busy = {
        "error": {
            "message": "The server is busy; try again shortly.",
            "type": "server_error",
            "param": None,
            "code": "overloaded",
        }
    }
    page.route(
        "**/translate/document",
        lambda route: route.fulfill(status=503, headers={"retry-after": "2"}, json=busy),
    )
    open_page(page, served(FakeEngine()))
    choose(page, "talk.srt", SRT)
    page.click("#document-translate")
    page.wait_for_selector("#document-error:not([hidden])")
    assert page.inner_text("#document-error-message") == busy["error"]["message"]
    assert page.inner_text("#document-retry") == "Try again in 2 s."
    page.wait_for_selector("#document-retry:has-text('You can try again now.')", timeout=5000)
    assert page.is_hidden("#error")  # the text translator's own box is left alone


def test_with_api_keys_the_key_goes_with_every_document_request(page: Any, served: Any) -> None:
    base = served(FakeEngine(), api_key=["s3cret"])
    page.add_init_script("sessionStorage.setItem('translate-server.api-key', 's3cret')")
    open_page(page, base)
    sent = []
    page.on(
        "request",
        lambda request: sent.append(request) if "/translate/document" in request.url else None,
    )
    choose(page, "notes.txt", b"First line of notes.\n\nSecond line of notes.\n")
    page.click("#document-translate")
    finished(page)
    assert page.is_hidden("#document-error")
    assert {request.headers.get("authorization") for request in sent} == {"Bearer s3cret"}
    assert {
        re.sub(r"/translate/document/[^/?]+", "/ID", request.url.split("?")[0]).removeprefix(base)
        for request in sent
    } >= {"/translate/document", "/ID/events", "/ID/result"}
    with page.expect_download() as downloaded:
        page.click("#document-download")
    assert downloaded.value.suggested_filename == "notes.de.txt"
    assert (
        Path(downloaded.value.path()).read_text()
        == "FIRST LINE OF NOTES.\n\nSECOND LINE OF NOTES.\n"
    )


def test_without_documents_the_panel_is_hidden(page: Any, served: Any) -> None:
    open_page(page, served(FakeEngine(), documents=False))
    assert page.is_hidden("#documents")
    assert page.locator("#document-file").is_hidden()


def test_a_progress_stream_cut_short_falls_back_to_the_status_route(page: Any, served: Any) -> None:
    # As a proxy that does not pass streams through might: the stream ends at once, empty.
    page.route(
        "**/events?*",
        lambda route: route.fulfill(
            status=200, headers={"content-type": "text/event-stream"}, body=""
        ),
    )
    open_page(page, served(FakeEngine()))
    polled = []
    page.on(
        "request",
        lambda request: (
            polled.append(request.url)
            if re.search(r"/translate/document/[^/]+\?key=", request.url)
            else None
        ),
    )
    choose(page, "notes.txt", b"Polled, not streamed.\n")
    page.click("#document-translate")
    finished(page)
    assert polled
    assert page.inner_text("#document-progress-text") == "1 of 1 segments"
    with page.expect_download() as downloaded:
        page.click("#document-download")
    assert Path(downloaded.value.path()).read_text() == "POLLED, NOT STREAMED.\n"
