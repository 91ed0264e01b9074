"""gettext catalogs (PO, POT) through polib.

Each untranslated entry's msgid (and msgid_plural) is translated into msgstr (every
msgstr[n]: [0] from the singular, the others from the plural; a language with one form gets
the plural). Entries that already have a translation are left alone unless `retranslate`;
fuzzy entries count as untranslated. A machine-translated entry whose translation needs
review (its quality estimate is low, or it has warnings) is marked fuzzy, and only those
(without estimates, every one is); in format strings (a `*-format` flag) placeholders the
translator changed are put back; flags, comments, references, contexts and obsolete entries
are kept. The number of plural forms comes from the catalog's Plural-Forms header, else from
translate-toolkit's language table for the target language (and is then written to the
header), else 2.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import polib
from translate.lang import data as language_data

from translate_server.documents.formats.base import (
    DocumentFormat,
    Extracted,
    FormatOptions,
    SegmentReview,
    TextEncoding,
    decode_text,
)
from translate_server.documents.formats.protect import PLACEHOLDER, restore
from translate_server.errors import InvalidDocumentError

_NPLURALS = re.compile(r"nplurals\s*=\s*(\d+)")
_CHARSET = re.compile(r"charset=[^\s;]+")
_START = re.compile(rb'^msgid\s+"', re.MULTILINE)


@dataclass
class _Item:
    entry: polib.POEntry
    plural: bool  # its segments are msgid then msgid_plural


class PoExtracted(Extracted):
    def __init__(
        self, catalog: polib.POFile, items: list[_Item], nplurals: int, encoding: TextEncoding
    ) -> None:
        self.catalog = catalog
        self.items = items
        self.nplurals = nplurals
        self.encoding = encoding
        self.segments = []
        self.known = [
            (entry.msgid, entry.msgstr)
            for entry in catalog
            if not entry.obsolete
            and entry.msgid
            and not entry.msgid_plural
            and entry.translated()
            and entry.msgstr.strip()
        ]
        for item in items:
            self.segments.append(item.entry.msgid)
            if item.plural:
                self.segments.append(item.entry.msgid_plural)

    def rebuild(self, translations: Sequence[str]) -> bytes:
        """Every machine-translated entry marked fuzzy (nothing says which to trust)."""
        return self._rebuild(translations, [True] * len(translations))

    def rebuild_reviewed(
        self, translations: Sequence[str], reviews: Sequence[SegmentReview]
    ) -> bytes:
        """Only the entries whose translation needs review are marked fuzzy."""
        return self._rebuild(translations, [review.needs_review for review in reviews])

    def _rebuild(self, translations: Sequence[str], flagged: Sequence[bool]) -> bytes:
        self.check(translations)
        remaining = iter(zip(translations, flagged, strict=True))
        for item in self.items:
            entry = item.entry
            text, fuzzy = next(remaining)
            singular = self._protect(entry, entry.msgid, text)
            if item.plural:
                text, also = next(remaining)
                fuzzy = fuzzy or also
                plural = self._protect(entry, entry.msgid_plural, text)
                forms = (
                    [singular] + [plural] * (self.nplurals - 1) if self.nplurals > 1 else [plural]
                )
                entry.msgstr_plural = dict(enumerate(forms))
            else:
                entry.msgstr = singular
            if fuzzy and "fuzzy" not in entry.flags:
                entry.flags.insert(0, "fuzzy")
            elif not fuzzy and "fuzzy" in entry.flags:
                entry.flags.remove("fuzzy")  # a fuzzy entry translated again, and trusted
                entry.previous_msgid = entry.previous_msgid_plural = None
                entry.previous_msgctxt = None
        return self.encoding.encode(self.catalog.__unicode__())

    @staticmethod
    def _protect(entry: polib.POEntry, source: str, translation: str) -> str:
        """A format string's placeholders back as they were, where the translator changed them."""
        if not any(f.endswith("-format") and not f.startswith("no-") for f in entry.flags):
            return translation
        return restore(
            translation, PLACEHOLDER, [match.group() for match in PLACEHOLDER.finditer(source)]
        )


def extract(data: bytes, options: FormatOptions) -> Extracted:
    text, encoding = decode_text(data)
    try:
        catalog = polib.pofile(text)
    except (OSError, ValueError) as exc:
        raise InvalidDocumentError(f"The PO file cannot be read: {exc}") from exc
    _declare_utf8(catalog)
    items = [
        _Item(entry, bool(entry.msgid_plural))
        for entry in catalog
        if not entry.obsolete and entry.msgid and (options.retranslate or not entry.translated())
    ]
    nplurals = _nplurals(catalog, options.target_lang, any(item.plural for item in items))
    return PoExtracted(catalog, items, nplurals, encoding)


def _declare_utf8(catalog: polib.POFile) -> None:
    """The catalog is written as UTF-8 whatever it was read as; its header must say so."""
    content_type = catalog.metadata.get("Content-Type")
    if content_type and "charset=" in content_type:
        catalog.metadata["Content-Type"] = _CHARSET.sub("charset=UTF-8", content_type)


def _nplurals(catalog: polib.POFile, target_lang: str | None, needed: bool) -> int:
    match = _NPLURALS.search(catalog.metadata.get("Plural-Forms", ""))
    if match:
        return max(1, int(match.group(1)))
    known = _language_plurals(target_lang)
    if known is None:
        return 2
    count, expression = known
    if needed:
        catalog.metadata["Plural-Forms"] = f"nplurals={count}; plural={expression};"
    return count


def _language_plurals(target_lang: str | None) -> tuple[int, str] | None:
    """(nplurals, plural expression) for a code such as `de`, `PT-BR` or `pt_BR`."""
    if not target_lang:
        return None
    language, _, region = target_lang.replace("-", "_").partition("_")
    for code in (f"{language.lower()}_{region.upper()}", language.lower()):
        found = language_data.languages.get(code)
        if found:
            return found[1], found[2]
    return None


def sniff(data: bytes) -> bool:
    return bool(_START.search(data.removeprefix(b"\xef\xbb\xbf")[:4096]))


FORMAT = DocumentFormat(
    "po", (".po", ".pot"), "text/x-gettext-translation; charset=utf-8", extract, sniff
)
