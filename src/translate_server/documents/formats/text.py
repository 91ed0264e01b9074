"""Plain text: one segment per paragraph; blank lines, indentation and line endings are
kept as they were. Line breaks inside a paragraph stay in its segment. A paragraph longer
than `MAX_SEGMENT_CHARS` (a file without blank lines) is split at line breaks, then at
sentence ends, as `/translate` splits long texts."""

from __future__ import annotations

import re

from translate_server.documents.formats.base import (
    DocumentFormat,
    Extracted,
    FormatOptions,
    TextExtracted,
    decode_text,
)
from translate_server.translation.segmentation.segments import Document, split_text

MAX_SEGMENT_CHARS = 2000
_BLANK_LINES = re.compile(r"\r?\n(?:[ \t]*\r?\n)+")


def extract(data: bytes, options: FormatOptions) -> Extracted:
    text, encoding = decode_text(data)
    return TextExtracted(paragraphs(text), encoding)


def paragraphs(text: str) -> Document:
    pieces: list[str] = []
    layout: list[str | int] = []
    position = 0
    for match in _BLANK_LINES.finditer(text):
        _add(text[position : match.start()], pieces, layout)
        layout.append(match.group())
        position = match.end()
    _add(text[position:], pieces, layout)
    return Document(pieces, layout)


def _add(paragraph: str, pieces: list[str], layout: list[str | int]) -> None:
    """The paragraph's text is a segment (or several, when long); the whitespace around
    and between them stays in the layout."""
    if len(paragraph) <= MAX_SEGMENT_CHARS:
        parts = _whole(paragraph)
    else:
        parts = split_text(paragraph, MAX_SEGMENT_CHARS)
    for part, is_piece in parts:
        if is_piece:
            layout.append(len(pieces))
            pieces.append(part)
        else:
            layout.append(part)


def _whole(paragraph: str) -> list[tuple[str, bool]]:
    body = paragraph.strip()
    if not body:
        return [(paragraph, False)]
    start = paragraph.index(body)
    return [(paragraph[:start], False), (body, True), (paragraph[start + len(body) :], False)]


FORMAT = DocumentFormat("txt", (".txt", ".text"), "text/plain; charset=utf-8", extract)
