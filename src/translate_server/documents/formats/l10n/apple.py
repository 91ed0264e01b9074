"""Apple's `.strings` and `.stringsdict`, written by hand: translate-toolkit's `.strings`
store writes every entry anew (its comments and spacing change) and it has no stringsdict
store.

- `.strings`: each `"key" = "value";` has its value translated, the comment before it told to
  the model; comments, keys, spacing and UTF-16 (with its byte order mark) stay. Escapes
  `\\"`, `\\\\`, `\\n`, `\\t`, `\\r`, `\\Uxxxx` are read and written.
- `.stringsdict`: each plural rule's forms (`NSStringPluralRuleType` dictionaries) become the
  target language's CLDR categories, each told its category and a sample number; a format
  key's text around its `%#@name@` variables is translated too. `%@`, `%lld`, `%1$@` and
  `%#@name@` are placeholders put back.
"""

from __future__ import annotations

import codecs
import functools
import re
from collections.abc import Callable, Sequence

from translate_server.documents.formats.base import (
    DocumentFormat,
    Extracted,
    FormatOptions,
    decode_text,
)
from translate_server.documents.formats.l10n import plurals
from translate_server.documents.formats.l10n.slots import (
    Parts,
    Slot,
    SlotsExtracted,
    single,
    slot,
)
from translate_server.documents.formats.l10n.xmltext import (
    Element,
    escape,
    parse,
    strip_invalid,
    text_of,
)
from translate_server.errors import InvalidDocumentError

_STRING = r'"(?:[^"\\]|\\.)*"'
_ENTRY = re.compile(
    r"(?P<skip>\s+|/\*.*?\*/|//[^\n]*)"
    rf"|(?P<key>{_STRING}|[\w.$-]+)(?P<equals>\s*=\s*)(?P<value>{_STRING})\s*;",
    re.DOTALL,
)
_ESCAPE = re.compile(r"\\(U[0-9a-fA-F]{4}|u[0-9a-fA-F]{4}|.)", re.DOTALL)
# What Xcode writes where the developer gave no comment: nothing to tell the model.
_NO_COMMENT = "No comment provided by engineer."
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}


def _unquote(value: str) -> str:
    return _ESCAPE.sub(
        lambda m: (
            chr(int(m.group(1)[1:], 16))
            if len(m.group(1)) == 5
            else _SIMPLE.get(m.group(1), m.group(1))
        ),
        value[1:-1],
    )


def _quote(value: str) -> str:
    value = value.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + value.replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r") + '"'


def _decode(data: bytes) -> tuple[str, Callable[[str], bytes]]:
    """UTF-16 (Xcode's old default, with its byte order mark) or UTF-8, written back so."""
    for bom, name in ((codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            return data[len(bom) :].decode(name), functools.partial(_utf16, bom, name)
    text, encoding = decode_text(data)
    return text, encoding.encode


def _utf16(bom: bytes, name: str, text: str) -> bytes:
    return bom + text.encode(name)


def extract_strings(data: bytes, options: FormatOptions) -> Extracted:
    text, encode = _decode(data)
    slots: list[Slot] = []
    at = 0
    note: str | None = None
    while at < len(text):
        match = _ENTRY.match(text, at)
        if match is None:
            raise InvalidDocumentError(
                f"The .strings file cannot be read at line {text.count(chr(10), 0, at) + 1}."
            )
        at = match.end()
        if match.group("skip") is not None:
            comment = match.group("skip").strip()
            if comment:
                note = comment.strip("/* ").strip()
            continue
        source = _unquote(match.group("value"))
        if source.strip():
            told = f"Comment: {note}" if note and note != _NO_COMMENT else None
            slots.append(
                slot(match.start("value"), match.end("value"), single(source, told), _quote)
            )
        note = None
    return SlotsExtracted(text, slots, encode)


def _dict_pairs(element: Element) -> list[tuple[Element, Element]]:
    """A plist `<dict>`'s (key, value) elements."""
    children = element.children
    return [
        (children[i], children[i + 1])
        for i in range(0, len(children) - 1, 2)
        if children[i].tag == "key"
    ]


class _Stringsdict:
    def __init__(self, text: str, language: str | None) -> None:
        self.text = text
        self.language = language
        self.slots: list[Slot] = []

    def entry(self, value: Element) -> None:
        for key, item in _dict_pairs(value):
            name = text_of(self.text, key)
            if name == "NSStringLocalizedFormatKey" and item.tag == "string":
                source = text_of(self.text, item)
                if re.sub(r"%#@\w+@|%\S+", "", source).strip():
                    self._string(item, single(source))
            elif item.tag == "dict":
                self.rule(item)

    def _string(self, element: Element, parts: Parts) -> None:
        self.slots.append(
            slot(
                element.inner_start,
                element.inner_end,
                parts,
                lambda found: escape(strip_invalid(found)),
            )
        )

    def rule(self, element: Element) -> None:
        pairs = _dict_pairs(element)
        kinds = {text_of(self.text, k): v for k, v in pairs}
        spec = kinds.get("NSStringFormatSpecTypeKey")
        if spec is None or text_of(self.text, spec) != "NSStringPluralRuleType":
            return
        forms = [(k, v) for k, v in pairs if text_of(self.text, k) in plurals.CATEGORIES]
        if not forms or "other" not in {text_of(self.text, k) for k, _ in forms}:
            return
        texts = {text_of(self.text, k): text_of(self.text, v) for k, v in forms}
        first_key, first_value = forms[0]
        last = forms[-1][1]
        inside = self.text[first_key.end : first_value.start]
        between = self.text[first_value.end : forms[1][0].start] if len(forms) > 1 else "\n\t\t\t"
        categories = plurals.categories(self.language)
        sources = [plurals.source_form(texts, c) for c in categories]
        contexts: list[str | None] = [plurals.plural_context(self.language, c) for c in categories]

        # Each form present keeps its own layout; a new one is laid out as the first.
        heads = {text_of(self.text, k): self.text[k.start : v.inner_start] for k, v in forms}
        for category in categories:
            heads.setdefault(category, f"<key>{category}</key>{inside}<string>")

        def write(found: Sequence[str], _: bool) -> str:
            return between.join(
                heads[category]
                + escape(strip_invalid(single(source).assemble([translation])))
                + "</string>"
                for category, source, translation in zip(categories, sources, found, strict=True)
            )

        self.slots.append(Slot(first_key.start, last.end, sources, contexts, write))


def extract_stringsdict(data: bytes, options: FormatOptions) -> Extracted:
    text, encode = _decode(data)
    try:
        root = parse(text)
    except ValueError as exc:
        raise InvalidDocumentError(f"The .stringsdict file cannot be read: {exc}") from exc
    top = root.find("dict")
    if root.tag != "plist" or top is None:
        raise InvalidDocumentError("A .stringsdict file is a property list of dictionaries.")
    reader = _Stringsdict(text, options.target_lang)
    for _, value in _dict_pairs(top):
        if value.tag == "dict":
            reader.entry(value)
    return SlotsExtracted(text, reader.slots, encode)


STRINGS_FORMAT = DocumentFormat(
    "strings", (".strings",), "text/plain; charset=utf-8", extract_strings
)
STRINGSDICT_FORMAT = DocumentFormat(
    "stringsdict", (".stringsdict",), "application/x-plist", extract_stringsdict
)
