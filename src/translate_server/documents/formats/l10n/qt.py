"""Qt Linguist `.ts`, written by hand over `xmltext`: translate-toolkit's TS store rewrites
the file through lxml (the DOCTYPE, quoting and indentation of what it touches change).

Each `<message>` whose `<translation>` is empty or `type="unfinished"` is translated (every
one with a translation, where `retranslate`); `obsolete` and `vanished` ones are left alone.
Its `<comment>` and `<extracomment>` are told to the model. A translation that needs review
keeps `type="unfinished"`; the others lose it. A `numerus="yes"` message gets one
`<numerusform>` per plural form of the target language as Qt counts them (gettext's, from
translate-toolkit's table), each told a number it is used for. The root's `language`
becomes the target language. Finished translations serve as the memory of the rest.
"""

from __future__ import annotations

import gettext
from collections.abc import Sequence

from translate.lang import data as language_data

from translate_server.documents.formats.base import (
    DocumentFormat,
    Extracted,
    FormatOptions,
    decode_text,
)
from translate_server.documents.formats.l10n import plurals
from translate_server.documents.formats.l10n.slots import Slot, SlotsExtracted, Write, single
from translate_server.documents.formats.l10n.xmltext import (
    Element,
    escape,
    parse,
    strip_invalid,
    text_of,
)
from translate_server.errors import InvalidDocumentError


def qt_forms(language: str | None) -> list[str]:
    """A sample count for each of the target language's plural forms, in Qt's order."""
    code = plurals.locale_tag(language or "en", "_")
    found = language_data.languages.get(code) or language_data.languages.get(code.split("_")[0])
    if not found or found[1] <= 1:
        return ["1"] if found else ["1", "2"]
    chooser = gettext.c2py(found[2])
    samples: dict[int, str] = {}
    for number in [*range(1, 200), 0]:
        samples.setdefault(chooser(number), str(number))
    return [samples.get(index, "n") for index in range(found[1])]


def encode(value: str) -> str:
    return escape(strip_invalid(value))


class _Reader:
    def __init__(self, text: str, options: FormatOptions) -> None:
        self.text = text
        self.options = options
        self.slots: list[Slot] = []
        self.known: list[tuple[str, str]] = []

    def message(self, message: Element) -> None:
        source = message.find("source")
        translation = message.find("translation")
        if source is None or translation is None:
            return
        kind = translation.attrs.get("type", "")
        if kind in ("obsolete", "vanished"):
            return
        text = text_of(self.text, source)
        done = text_of(self.text, translation)
        numerus = message.attrs.get("numerus") == "yes"
        if kind != "unfinished" and done.strip() and not self.options.retranslate:
            if not numerus:
                self.known.append((text, done))
            return
        if not text.strip():
            return
        notes = [
            text_of(self.text, e).strip()
            for e in message.children
            if e.tag in ("comment", "extracomment")
        ]
        note = "Comment: " + " ".join(notes) if any(notes) else None
        samples = qt_forms(self.options.target_lang) if numerus else []
        sources = [text] * len(samples) if numerus else [text]
        contexts: list[str | None] = [
            (f"{note}\n" if note else "")
            + f"Plural form {i + 1} of {len(samples)} of the target language, used for counts "
            f"such as {sample}. Translate this form for that count."
            for i, sample in enumerate(samples)
        ] or [note]
        self.slots.append(
            Slot(
                translation.start,
                translation.end,
                sources,
                contexts,
                self._writer(translation, numerus, text),
            )
        )

    def _writer(self, translation: Element, numerus: bool, source: str) -> Write:
        """The translation element written again: its start tag as it was but for
        `type="unfinished"` (kept only where the translation needs review), its forms laid out
        as the old ones were."""
        open_tag = self.text[translation.start : translation.inner_start]
        forms = translation.findall("numerusform")
        lead = tail = ""
        if forms:
            lead = self.text[translation.inner_start : forms[0].start]
            tail = self.text[forms[-1].end : translation.inner_end]
        if open_tag.endswith("/>"):
            open_tag = open_tag[:-2].rstrip() + ">"
        type_span = translation.attr_span(self.text, "type")

        def write(found: Sequence[str], needs_review: bool) -> str:
            tag = open_tag
            if type_span is not None and not needs_review:
                at = type_span[0] - translation.start
                before = tag[:at].rstrip()
                before = (
                    before[: -len("type=") - 1].rstrip()
                    if before.endswith(('type="', "type='"))
                    else before
                )
                tag = before + tag[type_span[1] - translation.start + 1 :]
            elif type_span is None and needs_review:
                tag = tag[:-1] + ' type="unfinished">'
            kept = [encode(single(source).assemble([t])) for t in found]
            body = (
                "".join(f"{lead}<numerusform>{k}</numerusform>" for k in kept) + tail
                if numerus
                else kept[0]
            )
            return f"{tag}{body}</translation>"

        return write


def extract(data: bytes, options: FormatOptions) -> Extracted:
    text, encoding = decode_text(data)
    try:
        root = parse(text)
    except ValueError as exc:
        raise InvalidDocumentError(f"The Qt .ts file cannot be read: {exc}") from exc
    if root.tag != "TS":
        raise InvalidDocumentError("A Qt .ts file is a `<TS>` element.")
    reader = _Reader(text, options)
    language = root.attr_span(text, "language")
    if language is not None and options.target_lang:
        target = plurals.locale_tag(options.target_lang, "_")
        reader.slots.append(Slot(language[0], language[1], [], [], lambda *_: target))
    for context in root.findall("context"):
        for message in context.findall("message"):
            reader.message(message)
    return SlotsExtracted(text, reader.slots, encoding.encode, reader.known)


FORMAT = DocumentFormat("ts", (".ts",), "application/x-linguist", extract)
