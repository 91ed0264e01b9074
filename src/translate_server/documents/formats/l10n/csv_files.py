"""CSV with a key column, written by hand: the `csv` module writes every row again (its
quoting and line ends change), so only the translated cells' spans are replaced.

The first row names the columns (the delimiter is whichever of `,`, `;` and tab it has most
of). The key column is the one named `key`, `id`, `name` or `msgid`, else the first. Where a
column is named for the target language (`de`, `de-DE`, `de_DE`) or `target`/`translation`,
its empty cells are translated from the source column (the one named `source`, else the first
that is neither key nor target) and its filled ones serve as the memory; else the source
column is translated in place. A cell is quoted where its translation needs it (a delimiter,
quote or line break) or where it was.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from translate_server.documents.formats.base import (
    DocumentFormat,
    Extracted,
    FormatOptions,
    decode_text,
)
from translate_server.documents.formats.l10n.slots import Slot, SlotsExtracted, single, slot
from translate_server.errors import InvalidDocumentError

_KEYS = ("key", "id", "name", "msgid", "string_id", "identifier")
_TARGETS = ("target", "translation")


def _cells(text: str, delimiter: str) -> list[list[tuple[int, int]]]:
    """Each row's cells as (start, end) spans of the text, quotes included."""
    cell = re.compile(rf'"(?:[^"]|"")*"|[^{re.escape(delimiter)}\r\n"]*')
    rows: list[list[tuple[int, int]]] = []
    at = 0
    while at < len(text):
        row: list[tuple[int, int]] = []
        while True:
            match = cell.match(text, at)
            assert match is not None
            row.append(match.span())
            at = match.end()
            if text.startswith(delimiter, at):
                at += len(delimiter)
                continue
            break
        if at < len(text) and text[at] not in "\r\n":
            raise InvalidDocumentError(f"The CSV file has a stray quote at row {len(rows) + 1}.")
        at += 2 if text.startswith("\r\n", at) else 1
        rows.append(row)
    return rows


def _value(raw: str) -> str:
    if raw.startswith('"'):
        return raw[1:-1].replace('""', '"')
    return raw


def _writer(raw: str, delimiter: str) -> Callable[[str], str]:
    """How a cell is written: quoted if it was, or if its new value needs it."""
    quoted = raw.startswith('"')

    def encode(value: str) -> str:
        special = any(c in value for c in (delimiter, '"', "\n", "\r"))
        if quoted or special or value != value.strip():
            return '"' + value.replace('"', '""') + '"'
        return value

    return encode


def _named(header: list[str], names: tuple[str, ...]) -> int | None:
    return next((i for i, h in enumerate(header) if h.strip().lower() in names), None)


def extract(data: bytes, options: FormatOptions) -> Extracted:
    text, encoding = decode_text(data)
    first_line = text.split("\n", 1)[0]
    delimiter = max((",", ";", "\t"), key=first_line.count)
    rows = _cells(text, delimiter)
    if not rows or len(rows[0]) < 2:
        raise InvalidDocumentError("A CSV file has a header row naming a key and a text column.")
    header = [_value(text[s:e]) for s, e in rows[0]]
    key = _named(header, _KEYS) or 0
    target_names = tuple(
        name.lower()
        for name in (
            options.target_lang or "",
            (options.target_lang or "").replace("-", "_"),
            (options.target_lang or "").split("-")[0],
            *_TARGETS,
        )
        if name
    )
    target = _named(header, target_names)
    source = _named(header, ("source",))
    if source is None:
        source = next((i for i in range(len(header)) if i not in (key, target)), None)
    if source is None:
        raise InvalidDocumentError("The CSV file has no column of texts beside its keys.")
    slots: list[Slot] = []
    known: list[tuple[str, str]] = []
    for row in rows[1:]:
        if len(row) <= source:
            continue
        text_span = row[source]
        value = _value(text[text_span[0] : text_span[1]])
        if not value.strip():
            continue
        write_to = text_span
        if target is not None:
            if len(row) <= target:
                continue
            write_to = row[target]
            existing = _value(text[write_to[0] : write_to[1]])
            if existing.strip() and not options.retranslate:
                known.append((value, existing))
                continue
        raw = text[write_to[0] : write_to[1]]
        slots.append(slot(write_to[0], write_to[1], single(value), _writer(raw, delimiter)))
    return SlotsExtracted(text, slots, encoding.encode, known)


FORMAT = DocumentFormat("csv", (".csv",), "text/csv; charset=utf-8", extract)
