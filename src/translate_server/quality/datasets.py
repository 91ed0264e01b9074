"""Test sets from real human translations: the gettext catalogs that ship inside Django's wheel.

Django's messages are written in English and translated by its community (BSD-3-Clause, like
the rest of Django). One parallel sample is drawn from the entries that every catalog language
has translated, so each pair translates the same messages: English into each language, and
each language's translation back into English against the English original.

Entries left out, each for a reason: fuzzy or obsolete (not reviewed), plural forms (one
message, several translations), a `msgctxt` (the meaning hangs on a context the benchmark does
not give: "May" the month or the verb), a translation that equals the English as the echo
check compares them ("Name", "Date :"; an echo would be right), no letters, and messages over
`MAX_CHARS`.
"""

from __future__ import annotations

import importlib.metadata
import importlib.resources
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, cast

import msgspec

from translate_server.text.placeholders import find_placeholders
from translate_server.translation.guard.checks import is_echo

if TYPE_CHECKING:
    from email.message import Message

PACKAGE = "Django"
MAX_CHARS = 400
# Language tag of a pair -> the catalog's locale directory.
LOCALES = {"de": "de", "fr": "fr", "es": "es", "zh": "zh_Hans", "ja": "ja"}
# The tag sent to the server where the catalog says more than the pair's language.
REQUEST_TAGS = {"zh": "zh-Hans"}
DEFAULT_PAIRS = ("en-de", "en-fr", "en-es", "en-zh", "en-ja", "de-en", "fr-en")
# Message catalogs inside the `django` package: core and contrib apps, server and JavaScript.
CATALOG_DIRS = (
    "conf/locale",
    "contrib/admin/locale",
    "contrib/admindocs/locale",
    "contrib/auth/locale",
    "contrib/contenttypes/locale",
    "contrib/flatpages/locale",
    "contrib/gis/locale",
    "contrib/humanize/locale",
    "contrib/postgres/locale",
    "contrib/redirects/locale",
    "contrib/sessions/locale",
    "contrib/sites/locale",
)
DOMAINS = ("django", "djangojs")
KINDS = ("placeholder", "sentence", "short")
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")


class Segment(msgspec.Struct, frozen=True, kw_only=True):
    id: str  # "<catalog>#<n>", stable for a given Django release
    source: str
    reference: str
    source_lang: str
    target_lang: str
    kind: str  # one of KINDS


class Provenance(msgspec.Struct, frozen=True, kw_only=True):
    package: str
    version: str
    license: str
    catalogs: list[str]  # paths inside the package, per locale directory: "<dir>/<locale>/..."
    note: str


class TestSet(msgspec.Struct, frozen=True, kw_only=True):
    pair: str  # "en-de"
    name: str = "short"  # "short" (here), "paragraph" or "document" (paragraphs.py)
    segments: list[Segment]
    provenance: Provenance


@dataclass(frozen=True, slots=True)
class _Entry:
    id: str
    english: str
    translations: dict[str, str]  # language tag -> text


def parse_pair(pair: str, locales: Mapping[str, str] = LOCALES) -> tuple[str, str]:
    source, _, target = pair.partition("-")
    if not target or "en" not in (source, target) or source == target:
        raise ValueError(f"a pair is like en-de or de-en, with English on one side: {pair!r}")
    other = target if source == "en" else source
    if other not in locales:
        raise ValueError(f"no catalog for {other!r}; known: {', '.join(sorted(locales))}")
    return source, target


def kind_of(english: str) -> str:
    if find_placeholders(english):
        return "placeholder"
    if len(english.split()) >= 5 and _SENTENCE_END.search(english):
        return "sentence"
    return "short"


def _catalog_paths(locale: str) -> list[tuple[str, importlib.resources.abc.Traversable]]:
    root = importlib.resources.files("django")
    found = []
    for directory in CATALOG_DIRS:
        for domain in DOMAINS:
            relative = f"{directory}/{locale}/LC_MESSAGES/{domain}.po"
            path = root.joinpath(*relative.split("/"))
            if path.is_file():
                found.append((relative, path))
    return found


def _usable(entry: Any) -> bool:  # a polib.POEntry
    return bool(
        entry.msgstr.strip()
        and entry.msgid.strip()
        and not entry.fuzzy
        and not entry.obsolete
        and not entry.msgid_plural
        and entry.msgctxt is None
        and len(entry.msgid) <= MAX_CHARS
        and not is_echo(entry.msgid, entry.msgstr)
        and sum(c.isalpha() for c in entry.msgid) >= 2
    )


@cache
def _entries() -> tuple[_Entry, ...]:
    """Every entry translated, and usable, in all catalog languages; in catalog order."""
    import polib  # the `quality` extra; imported here so that `bench --help` works without it

    by_key: dict[tuple[str, str], dict[str, str]] = {}
    order: list[tuple[str, str]] = []
    for tag, locale in LOCALES.items():
        for relative, path in _catalog_paths(locale):
            catalog = relative.replace(f"/{locale}/", "/*/")
            for entry in polib.pofile(path.read_text(encoding="utf-8")):
                if not _usable(entry):
                    continue
                key = (catalog, entry.msgid)
                if key not in by_key:
                    by_key[key] = {}
                    order.append(key)
                by_key[key][tag] = entry.msgstr
    entries = []
    for n, key in enumerate(order):
        if len(by_key[key]) == len(LOCALES):
            entries.append(_Entry(f"{key[0]}#{n}", key[1], by_key[key]))
    return tuple(entries)


def sample(entries: Sequence[_Entry], count: int, seed: int) -> list[_Entry]:
    """`count` entries, a third of each kind where there are enough (the rest from the other
    kinds), in a fixed order for a given seed."""
    rng = random.Random(seed)
    pools = {kind: [e for e in entries if kind_of(e.english) == kind] for kind in KINDS}
    chosen: list[_Entry] = []
    for i, kind in enumerate(KINDS):
        want = (count - len(chosen)) // (len(KINDS) - i)
        pool = pools[kind]
        chosen += rng.sample(pool, min(want, len(pool)))
    taken = {e.id for e in chosen}
    rest = [e for e in entries if e.id not in taken]
    chosen += rng.sample(rest, min(count - len(chosen), len(rest)))
    rng.shuffle(chosen)
    return chosen


def provenance(pair: str) -> Provenance:
    source, target = parse_pair(pair)
    locale = LOCALES[target if source == "en" else source]
    # An email.message.Message underneath; its protocol type omits `get`.
    metadata = cast("Message", importlib.metadata.metadata(PACKAGE))
    return Provenance(
        package=PACKAGE,
        version=importlib.metadata.version(PACKAGE),
        license=metadata.get("License-Expression") or metadata.get("License") or "BSD-3-Clause",
        catalogs=[f"django/{relative}" for relative, _ in _catalog_paths(locale)],
        note="Django's English messages and their translations by the Django translation "
        "teams; X->en pairs reverse the catalogs (the English original is the reference).",
    )


def load_sets(pairs: Iterable[str], segments: int, seed: int = 0) -> list[TestSet]:
    """One test set per pair, all drawn from the same sample of messages."""
    pairs = list(pairs)
    for pair in pairs:
        parse_pair(pair)
    chosen = sample(_entries(), segments, seed)
    sets = []
    for pair in pairs:
        source, target = parse_pair(pair)
        items = []
        for entry in chosen:
            text = entry.english if source == "en" else entry.translations[source]
            reference = entry.english if target == "en" else entry.translations[target]
            items.append(
                Segment(
                    id=entry.id,
                    source=text,
                    reference=reference,
                    source_lang=REQUEST_TAGS.get(source, source),
                    target_lang=REQUEST_TAGS.get(target, target),
                    kind=kind_of(entry.english),
                )
            )
        sets.append(TestSet(pair=pair, segments=items, provenance=provenance(pair)))
    return sets


def available() -> dict[str, int]:
    """How many entries of each kind the sample is drawn from."""
    counts = dict.fromkeys(KINDS, 0)
    for entry in _entries():
        counts[kind_of(entry.english)] += 1
    return counts


def memory_entries(pair: str, held_out: Iterable[str]) -> list[tuple[str, str]]:
    """The pair's (source, reference) of every usable message its catalogs translate, but the
    `held_out` ones (test segments' ids, `<catalog>#<n>`): the translation memory of a
    project whose other messages the test set holds. All of the language's messages, not only
    those every catalog language has (the test set's pool)."""
    import polib

    source, target = parse_pair(pair)
    other = target if source == "en" else source
    locale = LOCALES[other]
    by_id = {entry.id: entry for entry in _entries()}
    skipped = {
        (test_id.rsplit("#", 1)[0], by_id[test_id].english)
        for test_id in held_out
        if test_id in by_id
    }
    found = []
    for relative, path in _catalog_paths(locale):
        catalog = relative.replace(f"/{locale}/", "/*/")
        for entry in polib.pofile(path.read_text(encoding="utf-8")):
            if not _usable(entry) or (catalog, entry.msgid) in skipped:
                continue
            found.append(
                (entry.msgid, entry.msgstr) if source == "en" else (entry.msgstr, entry.msgid)
            )
    return found
