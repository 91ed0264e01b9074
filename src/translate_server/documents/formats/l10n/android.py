"""Android `strings.xml`, written by hand over `xmltext`: translate-toolkit's Android store
rewrites the whole file through lxml (the declaration, quoting and empty elements change),
and escapes apostrophes in text it was not asked to touch.

- `<string>`, each `<item>` of a `<string-array>` and `<plurals>` are translated; anything
  with `translatable="false"` is left alone, as are `<xliff:g>` spans inside a value.
- Android's escapes are read and written (`\\'`, `\\"`, `\\n`, `\\t`, `\\@`, `\\?`, `\\uXXXX`,
  a value in double quotes, CDATA); `%1$s` and `%d` are placeholders put back.
- A value with inline markup (`<b>`, `<xliff:g>`) has each run of its text translated, the
  tags kept.
- `<plurals>` gets one `<item quantity>` per CLDR category of the target language, each told
  its category and a sample number.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from translate_server.documents.formats.base import (
    DocumentFormat,
    Extracted,
    FormatOptions,
    decode_text,
)
from translate_server.documents.formats.l10n import plurals
from translate_server.documents.formats.l10n.slots import Slot, SlotsExtracted, single, slot
from translate_server.documents.formats.l10n.xmltext import (
    _TOKEN,
    Element,
    escape,
    parse,
    strip_invalid,
    text_of,
)
from translate_server.errors import InvalidDocumentError

_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.DOTALL)
_SIMPLE = {"n": "\n", "t": "\t"}


def unescape(value: str) -> str:
    """Android's reading of a value's text: outer double quotes dropped, escapes resolved."""
    if len(value) >= 2 and value.startswith('"') and value.endswith('"'):
        value = value[1:-1]
    return _ESCAPE.sub(
        lambda m: (
            chr(int(m.group(1)[1:], 16))
            if len(m.group(1)) == 5
            else _SIMPLE.get(m.group(1), m.group(1))
        ),
        value,
    )


def encode(value: str) -> str:
    """A translation as Android writes a value (in XML)."""
    value = strip_invalid(value).replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")
    value = value.replace("'", "\\'").replace('"', '\\"')
    if value[:1] in "@?" and value:
        value = "\\" + value
    return escape(value)


class _Reader:
    def __init__(self, text: str, language: str | None) -> None:
        self.text = text
        self.language = language
        self.slots: list[Slot] = []

    def resources(self, root: Element) -> None:
        for element in root.children:
            if element.attrs.get("translatable") == "false":
                continue
            if element.tag == "string":
                self.value(element)
            elif element.tag == "string-array":
                for item in element.findall("item"):
                    self.value(item)
            elif element.tag == "plurals":
                self.plurals(element)

    def value(self, element: Element) -> None:
        raw = self.text[element.inner_start : element.inner_end]
        if element.children:
            self.runs(element)
            return
        if raw.startswith("<![CDATA[") and raw.endswith("]]>"):
            source = unescape(raw[9:-3])
            if source.strip():
                self.slots.append(
                    slot(
                        element.inner_start,
                        element.inner_end,
                        single(source),
                        lambda found: (
                            "<![CDATA["
                            + _escape_text(found).replace("]]>", "]]]]><![CDATA[>")
                            + "]]>"
                        ),
                    )
                )
            return
        source = unescape(text_of(self.text, element))
        if source.strip() and not source.startswith("@"):  # `@string/other`: a reference
            self.slots.append(slot(element.inner_start, element.inner_end, single(source), encode))

    def runs(self, element: Element) -> None:
        """Each run of text outside `<xliff:g>` translated; the tags stay."""
        whole = text_of(self.text, element)
        at = element.inner_start
        kept = 0
        for match in _TOKEN.finditer(self.text, element.inner_start, element.inner_end):
            self._run(at, match.start(), kept, whole)
            tag = match.group(2) or ""
            if tag == "xliff:g" and not match.group(4):
                kept += -1 if match.group(1) else 1
            at = match.end()
        self._run(at, element.inner_end, kept, whole)

    def _run(self, start: int, end: int, kept: int, whole: str) -> None:
        raw = self.text[start:end]
        if kept or not raw.strip():
            return
        source = unescape(text_of_run(raw))
        lead = raw[: len(raw) - len(raw.lstrip())]
        trail = raw[len(raw.rstrip()) :]
        note = f"A piece of the text: {whole[:1500]}"
        self.slots.append(
            slot(start, end, single(source.strip(), note), lambda f: lead + encode(f) + trail)
        )

    def plurals(self, element: Element) -> None:
        items = element.findall("item")
        forms = {item.attrs.get("quantity", "other"): item for item in items}
        if not items or "other" not in forms or any(item.children for item in items):
            for item in items:
                self.value(item)
            return
        texts = {q: unescape(text_of(self.text, item)) for q, item in forms.items()}
        first, last = items[0], items[-1]
        between = self.text[first.end : items[1].start] if len(items) > 1 else "\n        "
        quantity = first.attr_span(self.text, "quantity")
        assert quantity is not None
        before = self.text[first.start : quantity[0]]
        after = self.text[quantity[1] : first.inner_start]
        categories = plurals.categories(self.language)
        sources = [plurals.source_form(texts, c) for c in categories]
        contexts: list[str | None] = [plurals.plural_context(self.language, c) for c in categories]

        # Each form present keeps its own start tag; a new one is written as the first.
        heads = {q: self.text[item.start : item.inner_start] for q, item in forms.items()}
        for category in categories:
            heads.setdefault(category, f"{before}{category}{after}")

        def write(found: Sequence[str], _: bool) -> str:
            return between.join(
                f"{heads[category]}{encode(single(source).assemble([translation]))}</item>"
                for category, source, translation in zip(categories, sources, found, strict=True)
            )

        self.slots.append(Slot(first.start, last.end, sources, contexts, write))


def text_of_run(raw: str) -> str:
    return html.unescape(raw)


def _escape_text(value: str) -> str:
    """A translation as Android writes it inside CDATA (its escapes, no XML entities)."""
    value = strip_invalid(value).replace("\\", "\\\\").replace("\n", "\\n")
    return value.replace("'", "\\'").replace('"', '\\"')


def extract(data: bytes, options: FormatOptions) -> Extracted:
    text, encoding = decode_text(data)
    try:
        root = parse(text)
    except ValueError as exc:
        raise InvalidDocumentError(f"The Android strings file cannot be read: {exc}") from exc
    if root.tag != "resources":
        raise InvalidDocumentError("An Android strings file is a `<resources>` element.")
    reader = _Reader(text, options.target_lang)
    reader.resources(root)
    return SlotsExtracted(text, reader.slots, encoding.encode)


def sniff(data: bytes) -> bool:
    return b"<resources" in data[:4096] and b"<string" in data[:8192]


FORMAT = DocumentFormat("android", (".xml",), "application/xml", extract, sniff)
