"""Java `.properties`, written by hand: translate-toolkit's properties store rewrites each
entry it touches as `key=value` (the separator and spacing around it change) and decides the
file's encoding by its dialect rather than by the file.

- Each entry's value is translated (continuation lines read as one value, and written as
  one line); keys, separators, comments (`#`, `!`, told to the model as context) and blank
  lines stay.
- Escapes are read and written: `\\t`, `\\n`, `\\r`, `\\f`, `\\\\`, `\\uXXXX`, a leading
  space. A file that is not UTF-8 is ISO-8859-1 (Java's own default before 9) and is written
  back so, with every character outside ASCII as `\\uXXXX`; a UTF-8 file stays UTF-8, its
  characters written as they are unless the file escaped its own.
- `{0}` (MessageFormat) and printf specifiers are placeholders put back.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from translate_server.documents.formats.base import (
    DocumentFormat,
    Extracted,
    FormatOptions,
)
from translate_server.documents.formats.l10n.slots import Slot, SlotsExtracted, single, slot

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")
_KEY = re.compile(r"(?:[^\s=:\\]|\\.)*", re.DOTALL)
_SEPARATOR = re.compile(r"[ \t\f]*[=:]?[ \t\f]*")
_CONTINUATION = re.compile(r"(?<!\\)((?:\\\\)*)\\(\r\n|\r|\n)[ \t\f]*")
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.DOTALL)
_SIMPLE = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def unescape(value: str) -> str:
    value = _CONTINUATION.sub(r"\1", value)
    return _ESCAPE.sub(
        lambda m: (
            chr(int(m.group(1)[1:], 16))
            if len(m.group(1)) == 5
            else _SIMPLE.get(m.group(1), m.group(1))
        ),
        value,
    )


def escaper(ascii_only: bool) -> Callable[[str], str]:
    def escape(value: str) -> str:
        value = value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
        value = value.replace("\r", "\\r").replace("\f", "\\f")
        if value.startswith(" "):
            value = "\\" + value
        if ascii_only:
            value = "".join(_units(char) for char in value)
        return value

    return escape


def _units(char: str) -> str:
    """A character as Java writes it in an ASCII file: one `\\uXXXX` per UTF-16 unit."""
    if ord(char) < 0x7F:
        return char
    data = char.encode("utf-16-be")
    return "".join(
        f"\\u{int.from_bytes(data[i : i + 2], 'big'):04x}" for i in range(0, len(data), 2)
    )


def _logical_lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of each logical line, its line break excluded."""
    lines: list[tuple[int, int]] = []
    at = 0
    start: int | None = None
    while at < len(text):
        match = _LINE.match(text, at)
        assert match is not None
        body = match.group().rstrip("\r\n")
        if start is None:
            start = at
        trailing = len(body) - len(body.rstrip("\\"))
        if trailing % 2 == 1 and match.end() < len(text) and body.lstrip(" \t\f")[:1] not in "#!":
            at = match.end()
            continue
        lines.append((start, at + len(body)))
        start = None
        at = match.end() if match.end() > at else len(text)
    return lines


def extract(data: bytes, options: FormatOptions) -> Extracted:
    try:
        text = data.decode("utf-8")
        ascii_only = text.isascii()
        encode: Callable[[str], bytes] = lambda out: out.encode("utf-8")  # noqa: E731
    except UnicodeDecodeError:
        text = data.decode("iso-8859-1")
        ascii_only = True
        encode = lambda out: out.encode("iso-8859-1")  # noqa: E731
    escape = escaper(ascii_only)
    slots: list[Slot] = []
    note: list[str] = []
    for start, end in _logical_lines(text):
        line = text[start:end]
        body = line.lstrip(" \t\f")
        if not body:
            note = []
            continue
        if body[0] in "#!":
            note.append(body[1:].strip())
            continue
        key_start = start + len(line) - len(body)
        key = _KEY.match(text, key_start, end)
        assert key is not None
        separator = _SEPARATOR.match(text, key.end(), end)
        value_start = separator.end() if separator else key.end()
        source = unescape(text[value_start:end])
        told = "Comment: " + " ".join(note) if note else None
        note = []
        if source.strip():
            slots.append(slot(value_start, end, single(source, told), escape))
    return SlotsExtracted(text, slots, encode)


FORMAT = DocumentFormat(
    "properties", (".properties",), "text/x-java-properties; charset=utf-8", extract
)
