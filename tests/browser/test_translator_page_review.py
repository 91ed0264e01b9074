"""The page from an empty server to a reviewed file, in a real Chromium over the engine double:
a memory made and filled from a TMX file, an entry found and edited; a glossary made and filled
from a TBX file; a PO file translated with both; its review opened, the flagged entry fixed,
saved as a correction into the memory and approved; the file downloaded with the fix and no
fuzzy flag. One page load for the whole story, at desktop width and then at phone width (390
px). The screenshots go to $TRANSLATE_SCREENSHOTS_DIR where it is set."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx
import polib

from translate_server.glossaries.tbx import write_tbx
from translate_server.memory.entries import Entry
from translate_server.memory.formats import write_tmx

from tests.browser.test_translator_page import open_page
from tests.browser.test_translator_page_documents import choose, finished
from tests.browser.test_translator_page_memory import SCREENSHOTS_ENV
from tests.support.estimate_models import estimate_models
from tests.support.fakes import _SOURCE, FakeEngine

PRINTER = "The printer is out of paper."
FIXED_PRINTER = "Der Drucker hat kein Papier mehr."
THANKS = "Thank you for coming."
THANKS_FIXED = "Danke, dass Sie gekommen sind."
MEMORY = write_tmx(
    [
        Entry("Save the file.", "Datei speichern.", "en", "de"),
        Entry(PRINTER, "Der Drucker ist aus Papier.", "en", "de"),
        Entry("Open the settings.", "Einstellungen öffnen.", "en", "de"),
    ]
)
# Cut off inside its third line: the server names the line it cannot read.
BROKEN = b'<?xml version="1.0"?>\n<tmx version="1.4"><header srclang="en"/>\n<body><tu><tuv'
TERMS = write_tbx({"printer": "Drucker", "tray": "Fach"}, "en", "de")
CATALOG = f"""msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "{PRINTER}"
msgstr ""

msgid "Clean the printer."
msgstr ""

msgid "{THANKS}"
msgstr ""
""".encode()


def _german(prompt: str, options: object) -> str:
    """Translates the printer's line, and sends the thanks back untranslated (an echo, which
    the quality checks flag for review)."""
    source = _SOURCE.search(prompt).group(1)  # type: ignore[union-attr]
    return {"Clean the printer.": "Reinigen Sie den Drucker."}.get(source, source)


def test_memories_glossaries_and_a_reviewed_file(page: Any, served: Any, tmp_path: Path) -> None:
    engine = FakeEngine(responder=_german)
    models = estimate_models(tmp_path)
    base = served(engine, quality_guard=True, quality_estimate_models=models)
    open_page(page, base)
    page.select_option("#source-lang", "en")
    page.select_option("#target-lang", "de")
    page.click("#stores summary")

    # A memory made from the keyboard, a TMX file imported into it; an entry found and edited.
    page.click("#memories-panel .store-new")
    page.keyboard.type("product")
    page.keyboard.press("Enter")
    page.wait_for_function("document.activeElement.id === 'memories-file'")  # the next step
    page.set_input_files("#memories-file", _file("broken.tmx", BROKEN))
    refusal = page.locator("#memories-panel .error:not([hidden])")
    assert "line 3" in refusal.inner_text()  # the server's refusal, naming the line
    page.set_input_files("#memories-file", _file("product.tmx", MEMORY))
    page.wait_for_selector("#memories-panel .store-import-status:has-text('3 added')")
    assert refusal.count() == 0
    page.fill("#memories-search", "printer")
    page.keyboard.press("Enter")
    page.wait_for_selector("#memories-panel .store-count:has-text('1\u20131 of 1 entry')")
    page.click("#memories-panel .entry-edit")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Translation"
    page.keyboard.press("Control+A")
    page.keyboard.type(FIXED_PRINTER)
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#memories-panel .entry-target:has-text('{FIXED_PRINTER}')")

    # A glossary made, a TBX file imported into the translator's pair.
    page.click("#glossaries-panel .store-new")
    page.keyboard.type("draft")
    page.keyboard.press("Enter")
    page.wait_for_function("document.activeElement.id === 'glossaries-file'")
    page.click("#glossaries-panel .store-rename")
    page.keyboard.press("Control+A")
    page.keyboard.type("terms")
    page.keyboard.press("Enter")
    page.wait_for_selector("#glossaries-pick option:has-text('terms (0 terms)')", state="attached")
    assert page.evaluate("document.activeElement.textContent") == "Rename"
    page.set_input_files("#glossaries-file", _file("terms.tbx", TERMS))
    page.wait_for_selector("#glossaries-panel .store-import-status:has-text('2 added')")
    page.fill("#glossaries-search", "tray")
    page.keyboard.press("Enter")
    page.wait_for_selector("#glossaries-panel .entry-target:has-text('Fach')")
    screenshot(page, page.locator("#stores"), "translator-stores-desktop.png")

    # Both made here are the translator's choices now: a PO file translated with them.
    assert page.locator("#memory option:checked").inner_text() == "product (3 entries)"
    assert page.locator("#glossary-id option:checked").inner_text() == "terms"
    choose(page, "app.po", CATALOG)
    page.click("#document-translate")
    finished(page)
    assert page.inner_text("#document-review") == "1 segment needs review"
    prompts = [engine.decode(ids) for _, ids, _ in engine.requests]
    assert not any(PRINTER in prompt for prompt in prompts)  # the memory's exact match
    assert any("Drucker" in prompt for prompt in prompts if "Clean the printer." in prompt)

    # The review: the flagged entry first, with its estimate and warnings.
    page.click("#document-review-open")
    page.wait_for_selector("#review:not([hidden]) .segment")
    first = page.locator("#review-segments .segment").first
    assert first.locator(".segment-source").inner_text() == THANKS
    assert first.locator(".segment-quality").inner_text().startswith("Needs review \u00b7 0.")
    assert "source text sent back" in first.locator(".warnings").inner_text()
    exact = page.locator("#review-segments .segment", has_text=PRINTER)
    assert exact.locator(".segment-match").inner_text() == "Exact memory match"
    assert page.evaluate("document.activeElement.id") == "segment-2"  # focus on the flagged
    assert page.input_value("#review-memory") == page.input_value("#memory")
    screenshot(page, page.locator("#documents"), "translator-review-desktop.png")

    # Fixed, approved with Ctrl+Enter, saved as a correction into the memory.
    page.fill("#segment-2", THANKS_FIXED)
    page.focus("#segment-2")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("#review-summary:has-text('Nothing needs review')")
    assert (
        "saved as a correction to \u201cproduct\u201d"
        in first.locator(".segment-status").inner_text()
    )
    assert first.locator(".segment-quality").inner_text() == "Approved (edited)"
    page.wait_for_selector("#document-review:has-text('0 segments need review')")
    with page.expect_download() as downloaded:
        page.click("#document-download")
    catalog = polib.pofile(Path(downloaded.value.path()).read_text())
    fixed = catalog.find(THANKS)
    assert (fixed.msgstr, fixed.flags) == (THANKS_FIXED, [])
    assert catalog.find(PRINTER).msgstr == FIXED_PRINTER
    assert not [entry for entry in catalog if "fuzzy" in entry.flags]
    with httpx.Client(base_url=base, timeout=30) as client:
        memory = page.input_value("#memory")
        entries = client.get(f"/memories/{memory}/entries", params={"q": "coming"}).json()
    assert [e["target"] for e in entries["data"]] == [THANKS_FIXED]

    # At phone width: nothing wider than the screen, the review and the stores in one column.
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, page.locator("#documents"), "translator-review-phone.png")
    screenshot(page, page.locator("#stores"), "translator-stores-phone.png")


def _file(name: str, data: bytes) -> dict[str, Any]:
    return {"name": name, "mimeType": "application/octet-stream", "buffer": data}


def screenshot(page: Any, part: Any, name: str) -> None:
    """One part of the page, not all of it: small pictures for the docs."""
    folder = os.environ.get(SCREENSHOTS_ENV)
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.mouse.move(0, 0)  # no hover effect in the picture
        part.screenshot(path=Path(folder) / name)
