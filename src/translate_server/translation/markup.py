"""HTML and XML: translate the text nodes, keep every byte of markup as it was.

The standard library's tolerant HTML tokenizer finds where each text node starts and ends in
the original string; everything else (tags, attributes, comments, doctype, entities in
attributes, odd whitespace) is copied through untouched, so the structure cannot change.
Text in <script>, <style>, <code>, <pre>, <textarea>, <kbd>, <samp>, <var> and in any element
with `translate="no"` or class `notranslate` is left as it is. XML is read as XML: no element
is special (no void elements, no raw-text <script> or <style>), only the `ignore_tags` the
client names keep their text; those are honoured in HTML too.
"""

from __future__ import annotations

import html
from html.parser import HTMLParser

from translate_server.translation.segmentation import Document, split_text

_SKIPPED = frozenset({"script", "style", "code", "pre", "textarea", "kbd", "samp", "var",
                      "template", "svg", "math"})
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                   "param", "source", "track", "wbr"})


def parse_html(markup: str, max_chars: int, *, xml: bool = False,
               ignore_tags: tuple[str, ...] = ()) -> Document:
    """The text nodes of `markup` as pieces (unescaped, long ones split); the layout holds the
    markup and whitespace verbatim, and translations are escaped back as they go in."""
    scanner = _Scanner(xml=xml, ignore_tags=ignore_tags)
    scanner.feed(markup)
    scanner.close()
    pieces: list[str] = []
    layout: list[str | int] = []
    for start, end, translatable in scanner.spans(len(markup)):
        raw = markup[start:end]
        if not translatable or not raw.strip():
            layout.append(raw)
            continue
        for part, is_piece in split_text(raw, max_chars):
            if is_piece:
                layout.append(len(pieces))
                pieces.append(html.unescape(part))
            else:
                layout.append(part)
    return Document(pieces, layout, escape=_escape)


def _escape(text: str) -> str:
    return html.escape(text, quote=False)


class _Scanner(HTMLParser):
    """Records the offset where each token starts and whether it is translatable text."""

    def __init__(self, *, xml: bool = False, ignore_tags: tuple[str, ...] = ()) -> None:
        super().__init__(convert_charrefs=True)
        ignored = frozenset(tag.lower() for tag in ignore_tags)
        self._skipped = ignored if xml else _SKIPPED | ignored
        self._void = frozenset() if xml else _VOID
        self._xml = xml
        if xml:
            # XML has no raw-text elements: <script> or <style> there is an element like any.
            self.CDATA_CONTENT_ELEMENTS = ()
        self._line_starts = [0]
        self._events: list[tuple[int, bool]] = []  # (start offset, is translatable text)
        self._stack: list[tuple[str, bool]] = []  # (tag, skips its text)

    def feed(self, data: str) -> None:
        offset = 0
        for line in data.splitlines(keepends=True):
            offset += len(line)
            self._line_starts.append(offset)
        super().feed(data)

    def _offset(self) -> int:
        line, column = self.getpos()
        return self._line_starts[line - 1] + column

    def _skipping(self) -> bool:
        return bool(self._stack) and self._stack[-1][1]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._events.append((self._offset(), False))
        if tag in self._void:
            return
        values = dict(attrs)
        skip = self._skipping() or tag in self._skipped or (not self._xml and (
            (values.get("translate") or "") == "no"
            or "notranslate" in (values.get("class") or "").split()))
        self._stack.append((tag, skip))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._events.append((self._offset(), False))

    def handle_endtag(self, tag: str) -> None:
        self._events.append((self._offset(), False))
        for depth in range(len(self._stack) - 1, -1, -1):
            if self._stack[depth][0] == tag:
                del self._stack[depth:]
                break

    def handle_data(self, data: str) -> None:
        self._events.append((self._offset(), not self._skipping()))

    def _other(self, *_: object) -> None:
        self._events.append((self._offset(), False))

    handle_comment = handle_decl = handle_pi = unknown_decl = _other

    def spans(self, length: int) -> list[tuple[int, int, bool]]:
        """(start, end, translatable) covering the whole input, in order."""
        events = sorted(set(self._events))
        spans = []
        if not events or events[0][0] > 0:
            spans.append((0, events[0][0] if events else length, False))
        for i, (start, translatable) in enumerate(events):
            end = events[i + 1][0] if i + 1 < len(events) else length
            if end > start:
                spans.append((start, end, translatable))
        return spans
