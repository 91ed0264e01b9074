"""XLIFF 1.2 and 2.0 through translate-toolkit (the storage layer of Weblate and Pootle).

Each translatable unit without a target (or with one marked as still needing translation)
gets its source translated into its target. A translation whose quality estimate says it
needs review is marked so (1.2: `state="needs-review-translation"`, `approved="no"`; 2.0:
`state="initial"`), with a note giving its estimate; the others are `translated`, never
approved. Without estimates every unit is marked as needing review.
Units with a translation are left alone unless `retranslate`. Units whose source holds inline
markup (`<g>`, `<x/>`, `<ph>`, `<pc>`...) are left untranslated: a plain-text translation
would drop the markup, and the translator has no way yet to carry it.
"""

from __future__ import annotations

from collections.abc import Sequence

from translate.storage import xliff, xliff2
from translate.storage.base import TranslationUnit
from translate.storage.placeables import StringElem

from translate_server.documents.formats.base import (
    DocumentFormat,
    Extracted,
    FormatOptions,
    SegmentReview,
)
from translate_server.errors import InvalidDocumentError

_XLIFF2 = b"urn:oasis:names:tc:xliff:document:2."


class XliffExtracted(Extracted):
    def __init__(
        self, store: xliff.xlifffile | xliff2.Xliff2File, units: list[TranslationUnit]
    ) -> None:
        self.store = store
        self.units = units
        self.segments = [unit.source for unit in units]
        chosen = {id(unit) for unit in units}
        self.known = [
            (str(unit.source), str(unit.target))
            for unit in store.units
            if id(unit) not in chosen
            and not unit.isheader()
            and unit.source
            and unit.source.strip()
            and _plain(unit)
            and _translated(unit)
        ]

    def rebuild(self, translations: Sequence[str]) -> bytes:
        """Every unit marked as needing review (nothing says which to trust)."""
        return self.rebuild_reviewed(translations, [SegmentReview(None, True)] * len(translations))

    def rebuild_reviewed(
        self, translations: Sequence[str], reviews: Sequence[SegmentReview]
    ) -> bytes:
        """Units whose translation needs review: 1.2 `state="needs-review-translation"`, 2.0
        `state="initial"`, each with a note of its estimate; the others `translated` (never
        approved: a person has not seen them)."""
        self.check(translations)
        for unit, translation, review in zip(self.units, translations, reviews, strict=True):
            unit.target = translation
            if review.needs_review:
                _mark_for_review(unit, review.estimate)
            elif isinstance(unit, xliff.xliffunit):
                unit.set_state_n(unit.S_TRANSLATED)
                unit.markapproved(False)
            else:
                unit.markfuzzy(False)  # state="translated"
        return bytes(self.store)


def _mark_for_review(unit: TranslationUnit, estimate: float | None) -> None:
    note = "Machine translation: needs review"
    if estimate is not None:
        note += f" (quality estimate {estimate:.2f})"
    if isinstance(unit, xliff.xliffunit):
        unit.markreviewneeded(True, explanation=note + ".")
    else:
        unit.markfuzzy(True)  # state="initial"
        unit.addnote(note + ".", origin="translator")


def extract(data: bytes, options: FormatOptions) -> Extracted:
    kind = xliff2.Xliff2File if _XLIFF2 in data[:4096] else xliff.xlifffile
    try:
        store = kind.parsestring(data)
    except Exception as exc:  # lxml's and the toolkit's own parse errors alike
        raise InvalidDocumentError(f"The XLIFF file cannot be read: {exc}") from exc
    units = [
        unit
        for unit in store.units
        if not unit.isheader()
        and unit.istranslatable()
        and unit.source
        and unit.source.strip()
        and _plain(unit)
        and (options.retranslate or not _translated(unit))
    ]
    return XliffExtracted(store, units)


def _plain(unit: TranslationUnit) -> bool:
    return all(type(node) is StringElem for node in unit.rich_source[0].depth_first())


def _translated(unit: TranslationUnit) -> bool:
    if not unit.target:
        return False
    if isinstance(unit, xliff.xliffunit):
        return unit.get_state_n() >= unit.S_NEEDS_REVIEW
    return True


def sniff(data: bytes) -> bool:
    return b"<xliff" in data[:4096]


FORMAT = DocumentFormat("xliff", (".xlf", ".xliff"), "application/xliff+xml", extract, sniff)
