"""Paragraph and document test sets: multi-sentence human translations from the gettext
catalogs of Gramps, the genealogy program, whose wheel ships compiled catalogs (`.mo`).

Its tips of the day ("Talk to Relatives Before It Is Too Late", a title line and a paragraph
of prose) and its longer dialog messages are written in English and translated by its
community (GPL-2.0-or-later, like the rest of Gramps). A paragraph is an entry whose English
has at least `MIN_SENTENCES` sentences and `MIN_CHARS` to `MAX_CHARS` characters once its
markup (`<b>`, `<br/>`) is turned into plain text, and that is translated in all five catalog
languages; a document is several such paragraphs joined by blank lines.

No package searched holds 12 paragraphs of three sentences and 350 characters translated
into all five languages (Gramps has 9, docs/quality.md), so the bounds are two sentences and
250 characters. Entries left out, each for a reason: a `msgctxt`, plural forms, markup other
than bold, italics and line breaks, placeholders (`%(name)s`, `{0}`: the paragraph sets test
prose, the short sets test placeholders), and a translation whose length is implausible
(beyond `LENGTH_BAND` times the language's median ratio to the English: a translator's added
explanation, a shortened one). A `.mo` holds no fuzzy or obsolete entry (msgfmt leaves them
out).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import random
import re
import statistics
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from translate_server.quality.datasets import (
    REQUEST_TAGS,
    Provenance,
    Segment,
    TestSet,
    parse_pair,
)
from translate_server.text.placeholders import find_placeholders

if TYPE_CHECKING:
    from email.message import Message

PACKAGE = "gramps"
# Language tag of a pair -> the catalog's locale directory (Gramps has no zh_Hans: zh_CN).
LOCALES = {"de": "de", "fr": "fr", "es": "es", "ja": "ja", "zh": "zh_CN"}
CATALOG = "share/locale/{locale}/LC_MESSAGES/gramps.mo"  # in the wheel's data, under sys.prefix
DEFAULT_PAIRS = ("en-de", "en-fr", "en-es", "en-ja", "en-zh")
MIN_SENTENCES, MIN_CHARS, MAX_CHARS = 2, 250, 1400
LENGTH_BAND = (0.6, 1.6)
# A document: paragraphs in a row until the English has DOCUMENT_MIN_CHARS and at least
# DOCUMENT_MIN_PARAGRAPHS paragraphs (a paragraph is at most MAX_CHARS, so at most 3,400;
# Gramps' make 2,000 to 2,300).
DOCUMENT_MIN_CHARS, DOCUMENT_MIN_PARAGRAPHS = 2000, 4
PARAGRAPH_BREAK = "\n\n"

_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_INLINE = re.compile(r"</?(?:b|i|em|strong)>", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|vs|cf)\.", re.IGNORECASE)
# A sentence ends with . ! or ? after a word (not "..." alone), maybe inside a quote or a
# bracket, before a space or the end.
_SENTENCE_END = re.compile(r"[\w)\"'][.!?][\"')]?(?=\s|$)")


@dataclass(frozen=True, slots=True)
class Paragraph:
    id: str  # "gramps.mo#<first 8 hex digits of the English's SHA-1>", stable across releases
    english: str
    translations: dict[str, str]  # language tag -> text


def plain_text(message: str) -> str:
    """A catalog message as plain text: line breaks for `<br/>`, no bold or italics, the
    spaces within each line collapsed, no more than one blank line in a row."""
    text = _INLINE.sub("", _BREAK.sub("\n", message))
    lines = [" ".join(line.split()) for line in text.strip().split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def count_sentences(english: str) -> int:
    """English sentences, counted by their ends; "e.g." and the like end none, and a title
    line without a full stop is no sentence."""
    return len(_SENTENCE_END.findall(_ABBREVIATION.sub("x", english)))


def is_paragraph(english: str) -> bool:
    """Whether a plain-text English message is prose long enough for the paragraph set."""
    return (
        MIN_CHARS <= len(english) <= MAX_CHARS
        and count_sentences(english) >= MIN_SENTENCES
        and not _TAG.search(english)
        and not find_placeholders(english)
    )


def plausible(paragraphs: Sequence[Paragraph]) -> list[Paragraph]:
    """The paragraphs whose every translation has a length within `LENGTH_BAND` times its
    language's median length ratio to the English."""
    if not paragraphs:
        return []
    medians = {
        tag: statistics.median(len(p.translations[tag]) / len(p.english) for p in paragraphs)
        for tag in LOCALES
    }
    low, high = LENGTH_BAND
    return [
        p
        for p in paragraphs
        if all(
            low <= len(p.translations[tag]) / len(p.english) / medians[tag] <= high
            for tag in LOCALES
        )
    ]


def _paragraph_id(english: str) -> str:
    return "gramps.mo#" + hashlib.sha1(english.encode()).hexdigest()[:8]


def catalog_path(locale: str) -> Path | None:
    """The installed catalog of `locale`: where the package's RECORD says, else under the
    prefix or the install target (`pip install --target` records paths it did not use)."""
    try:
        dist = importlib.metadata.distribution(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return None
    relative = CATALOG.format(locale=locale)
    candidates = [
        Path(str(dist.locate_file(f)))
        for f in dist.files or ()
        if str(f).replace("\\", "/").endswith(relative)
    ]
    candidates += [Path(sys.prefix) / relative, Path(str(dist.locate_file(""))) / relative]
    return next((path for path in candidates if path.is_file()), None)


def installed() -> bool:
    return all(catalog_path(locale) is not None for locale in LOCALES.values())


def collect(catalogs: Mapping[str, Iterable[Any]]) -> list[Paragraph]:
    """Paragraphs from parsed catalogs (language tag -> polib entries): the usable entries
    translated in every language, sorted by id. Pure: the unit tests feed it made-up entries."""
    by_english: dict[str, dict[str, str]] = {}
    for tag, entries in catalogs.items():
        for entry in entries:
            if (
                entry.msgctxt is not None
                or entry.msgid_plural
                or entry.obsolete
                or getattr(entry, "fuzzy", False)
                or not entry.msgstr.strip()
            ):
                continue
            english = plain_text(entry.msgid)
            translation = plain_text(entry.msgstr)
            if is_paragraph(english) and not _TAG.search(translation):
                by_english.setdefault(english, {})[tag] = translation
    complete = [
        Paragraph(_paragraph_id(english), english, translations)
        for english, translations in by_english.items()
        if set(translations) == set(catalogs)
    ]
    return sorted(plausible(complete), key=lambda p: p.id)


@cache
def paragraphs() -> tuple[Paragraph, ...]:
    import polib  # the `quality` extra

    catalogs = {}
    for tag, locale in LOCALES.items():
        path = catalog_path(locale)
        if path is None:
            raise ValueError(
                f"no {CATALOG.format(locale=locale)} of the {PACKAGE} package: "
                "install the `quality` extra"
            )
        catalogs[tag] = polib.mofile(str(path))
    return tuple(collect(catalogs))


def _shuffled(seed: int) -> list[Paragraph]:
    order = list(paragraphs())
    random.Random(seed).shuffle(order)
    return order


def draw_documents(order: Sequence[Paragraph], count: int) -> list[list[Paragraph]]:
    """`count` documents of paragraphs in a row from `order`, none used twice."""
    documents: list[list[Paragraph]] = []
    current: list[Paragraph] = []
    for paragraph in order:
        if len(documents) == count:
            break
        current.append(paragraph)
        chars = len(PARAGRAPH_BREAK.join(p.english for p in current))
        if chars >= DOCUMENT_MIN_CHARS and len(current) >= DOCUMENT_MIN_PARAGRAPHS:
            documents.append(current)
            current = []
    if len(documents) < count:
        raise ValueError(
            f"the catalogs hold {len(order)} paragraphs, enough for "
            f"{len(documents)} documents; asked for {count}"
        )
    return documents


def _segment(id_: str, parts: Sequence[Paragraph], source: str, target: str, kind: str) -> Segment:
    def text(lang: str) -> str:
        return PARAGRAPH_BREAK.join(
            p.english if lang == "en" else p.translations[lang] for p in parts
        )

    return Segment(
        id=id_,
        source=text(source),
        reference=text(target),
        source_lang=REQUEST_TAGS.get(source, source),
        target_lang=REQUEST_TAGS.get(target, target),
        kind=kind,
    )


def provenance(pair: str, kind: str) -> Provenance:
    source, target = parse_pair(pair, LOCALES)
    locale = LOCALES[target if source == "en" else source]
    # An email.message.Message underneath; its protocol type omits `get`.
    metadata = cast("Message", importlib.metadata.metadata(PACKAGE))
    joined = (
        " joined by blank lines into documents of at least "
        f"{DOCUMENT_MIN_PARAGRAPHS} paragraphs and {DOCUMENT_MIN_CHARS:,} characters"
        if kind == "document"
        else ""
    )
    return Provenance(
        package=PACKAGE,
        version=importlib.metadata.version(PACKAGE),
        license=metadata.get("License-Expression") or "GPL-2.0-or-later",
        catalogs=[CATALOG.format(locale=locale)],
        note=f"Gramps' English messages of {MIN_SENTENCES}+ sentences and {MIN_CHARS}-"
        f"{MAX_CHARS} characters (tips of the day, dialogs) and their translations by the "
        f"Gramps translation teams{joined}; markup made plain text; X->en pairs reverse the "
        "catalogs.",
    )


def load_paragraph_sets(pairs: Iterable[str], count: int, seed: int = 0) -> list[TestSet]:
    """One set per pair: the first `count` paragraphs of the seed's order, the same in every
    pair."""
    pairs = list(pairs)
    langs = [parse_pair(pair, LOCALES) for pair in pairs]
    chosen = _shuffled(seed)[:count]
    if len(chosen) < count:
        raise ValueError(f"the catalogs hold {len(chosen)} paragraphs; asked for {count}")
    return [
        TestSet(
            pair=pair,
            name="paragraph",
            provenance=provenance(pair, "paragraph"),
            segments=[_segment(p.id, [p], s, t, "paragraph") for p in chosen],
        )
        for pair, (s, t) in zip(pairs, langs, strict=True)
    ]


def load_document_sets(
    pairs: Iterable[str], count: int, seed: int = 0, paragraphs_first: int = 0
) -> list[TestSet]:
    """One set per pair, the same `count` documents in every pair, drawn from the seed's order
    after its first `paragraphs_first` paragraphs (those the paragraph set takes), so that a
    run with both sets does not translate a paragraph twice (the server's cache would answer
    the second time); where the rest is too short, those paragraphs come last."""
    pairs = list(pairs)
    langs = [parse_pair(pair, LOCALES) for pair in pairs]
    order = _shuffled(seed)
    documents = draw_documents(order[paragraphs_first:] + order[:paragraphs_first], count)
    sets = []
    for pair, (source, target) in zip(pairs, langs, strict=True):
        segments = [
            _segment(
                f"document#{n}:" + "+".join(p.id.split("#")[1] for p in parts),
                parts,
                source,
                target,
                "document",
            )
            for n, parts in enumerate(documents, 1)
        ]
        sets.append(
            TestSet(
                pair=pair,
                name="document",
                segments=segments,
                provenance=provenance(pair, "document"),
            )
        )
    return sets


def available() -> dict[str, int]:
    """How many paragraphs the sets are drawn from, and how many documents they make."""
    order = list(paragraphs())
    documents = 0
    while True:
        try:
            draw_documents(order, documents + 1)
        except ValueError:
            break
        documents += 1
    return {"paragraphs": len(order), "documents": documents}
