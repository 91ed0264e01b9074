"""Plain text: one segment per paragraph; blank lines, indentation and line endings are
kept as they were. Line breaks inside a paragraph stay in its segment."""

from __future__ import annotations

import re

from translate_server.documents.formats.base import (
    DocumentFormat,
    Extracted,
    FormatOptions,
    TextExtracted,
    decode_text,
)
from translate_server.segmentation import Document

_BLANK_LINES = re.compile(r"\r?\n(?:[ \t]*\r?\n)+")


def extract(data: bytes, options: FormatOptions) -> Extracted:
    text, encoding = decode_text(data)
    return TextExtracted(paragraphs(text), encoding)


def paragraphs(text: str) -> Document:
    pieces: list[str] = []
    layout: list[str | int] = []
    position = 0
    for match in _BLANK_LINES.finditer(text):
        _add(text[position:match.start()], pieces, layout)
        layout.append(match.group())
        position = match.end()
    _add(text[position:], pieces, layout)
    return Document(pieces, layout)


def _add(paragraph: str, pieces: list[str], layout: list[str | int]) -> None:
    """The paragraph's text is a segment; its surrounding whitespace stays in the layout."""
    body = paragraph.strip()
    if not body:
        layout.append(paragraph)
        return
    start = paragraph.index(body)
    layout.append(paragraph[:start])
    layout.append(len(pieces))
    pieces.append(body)
    layout.append(paragraph[start + len(body):])


FORMAT = DocumentFormat("txt", (".txt", ".text"), "text/plain; charset=utf-8", extract)
