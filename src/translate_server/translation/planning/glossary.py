"""Glossaries: required translations of terms, given to the model for the pieces that hold them,
and checked afterwards. A request's own (`glossary`) is scanned term by term; a stored one
(`glossary_id`), of up to ten thousand terms, through its `GlossaryIndex`, built once per
revision of the glossary."""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Hashable, Mapping, Sequence
from functools import lru_cache

import ahocorasick

from translate_server.errors import InvalidRequestError, PayloadTooLargeError

# A request's own glossary: each of its terms is looked for in each piece. A larger one is
# stored (/glossaries, DeepL's) and named by `glossary_id`: its index finds its terms at once.
MAX_ENTRIES = 256
MAX_TERM_CHARS = 1_000
# Entries are written into the instructions one per line: one that could break a line (any
# line-break class or other control character) could add instructions of its own.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def validate_glossary(
    glossary: Mapping[str, str] | None, param: str = "glossary"
) -> dict[str, str]:
    """The glossary without blank entries; too large or empty terms are a 400."""
    if not glossary:
        return {}
    if len(glossary) > MAX_ENTRIES:
        raise PayloadTooLargeError(
            f"A request's own glossary may hold at most {MAX_ENTRIES} entries (this one has "
            f"{len(glossary)}): store a larger one (POST /glossaries) and name it by "
            "`glossary_id`.",
            param=param,
            code="glossary_too_large",
        )
    entries = {}
    for term, required in glossary.items():
        if not term.strip() or not required.strip():
            raise InvalidRequestError(
                "Glossary terms and translations must not be empty.", param=f"{param}.{term}"
            )
        if _CONTROL.search(term) or _CONTROL.search(required):
            raise InvalidRequestError(
                "Glossary terms and translations must be single lines without control characters.",
                param=f"{param}.{term}",
                code="invalid_glossary_entry",
            )
        if len(term) > MAX_TERM_CHARS or len(required) > MAX_TERM_CHARS:
            raise InvalidRequestError(
                f"Glossary terms and translations may be at most {MAX_TERM_CHARS} characters.",
                param=f"{param}.{term}",
            )
        entries[term.strip()] = required.strip()
    return entries


@lru_cache(maxsize=4096)
def _pattern(term: str) -> re.Pattern[str]:
    # Whole words where the term starts or ends with a word character ("cat" not in "category").
    start = r"(?<!\w)" if term[:1].isalnum() else ""
    end = r"(?!\w)" if term[-1:].isalnum() else ""
    return re.compile(start + re.escape(term) + end, re.IGNORECASE)


@lru_cache(maxsize=4096)
def _literal(term: str) -> re.Pattern[str]:
    # The term alone, with the same case rules: a pattern that starts with a literal is found
    # by a fast scan, where one that starts with a lookbehind is tried at every position,
    # hundreds of times slower (seconds for a full glossary over a long text).
    return re.compile(re.escape(term), re.IGNORECASE)


# Occurrences of a term checked one by one for word boundaries before the whole-word pattern
# takes over: enough for real texts, and a text built to repeat a term inside longer words
# costs one linear search more.
_CANDIDATES = 8


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"  # what `\w` matches


def _contains(text: str, term: str, literal: re.Pattern[str] | None = None) -> bool:
    # Most terms do not occur at all, and most that occur do as whole words: both are found
    # by the literal scan.
    literal = literal or _literal(term)
    found = literal.search(text)
    check_start, check_end = term[:1].isalnum(), term[-1:].isalnum()
    for _ in range(_CANDIDATES):
        if found is None:
            return False
        start, end = found.span()
        if not (check_start and start > 0 and _is_word_char(text[start - 1])) and not (
            check_end and end < len(text) and _is_word_char(text[end])
        ):
            return True
        found = literal.search(text, start + 1)
    return found is not None and _pattern(term).search(text, found.start()) is not None


def entries_in(text: str, glossary: Mapping[str, str]) -> dict[str, str]:
    """The entries whose term occurs in `text`: only those go into its prompt."""
    return {term: required for term, required in glossary.items() if _contains(text, term)}


def applied_terms(source: str, translation: str, glossary: Mapping[str, str]) -> list[str]:
    """Terms that occur in `source` and whose required translation is in `translation`."""
    return [
        term
        for term, required in glossary.items()
        if _contains(source, term) and _contains(translation, required)
    ]


# Python's case-insensitive matching holds I, i, İ and ı for one letter, which case folding
# keeps apart: folded alike here, the index finds every term `_contains` would.
_DOTTED_AND_DOTLESS = str.maketrans({"\u0130": "i", "\u0131": "i"})


def _fold(text: str) -> str:
    return text.translate(_DOTTED_AND_DOTLESS).casefold()


# The folded characters of a term the automaton holds: a text holding a term holds its start,
# and every candidate is checked whole. Ten thousand terms of a thousand characters would
# otherwise make ten million states.
_INDEXED_CHARS = 48


class GlossaryIndex:
    """A stored glossary's terms in an Aho-Corasick automaton over their folded forms:
    one pass over a text finds every term that may occur in it, whatever the glossary's size,
    and only those are checked as `entries_in` checks a request's own terms (case, whole
    words). Building it costs milliseconds for ten thousand terms: it is built once per
    revision of its glossary (`GlossaryIndexes`)."""

    def __init__(self, entries: Mapping[str, str]) -> None:
        self.entries = dict(entries)
        self._automaton = ahocorasick.Automaton()
        # Terms that fold alike share a key: each keeps its place in the glossary.
        folded: dict[str, list[tuple[int, str]]] = {}
        for position, term in enumerate(self.entries):
            folded.setdefault(_fold(term)[:_INDEXED_CHARS], []).append((position, term))
        for key, terms in folded.items():
            self._automaton.add_word(key, terms)
        if folded:
            self._automaton.make_automaton()
        # The scans of the terms found in texts so far: a glossary of thousands of terms would
        # push the shared cache's out, and each is compiled once for this revision.
        self._literals: dict[str, re.Pattern[str]] = {}

    def __len__(self) -> int:
        return len(self.entries)

    def entries_in(self, text: str) -> dict[str, str]:
        """The entries whose term occurs in `text`, in the glossary's order."""
        if not self.entries:
            return {}
        candidates = {
            position: term
            for _end, terms in self._automaton.iter(_fold(text))
            for position, term in terms
        }
        return {
            term: self.entries[term]
            for _, term in sorted(candidates.items())
            if _contains(text, term, self._literal(term))
        }

    def _literal(self, term: str) -> re.Pattern[str]:
        found = self._literals.get(term)
        if found is None:
            found = self._literals[term] = re.compile(re.escape(term), re.IGNORECASE)
        return found


def base_tag(tag: str) -> str:
    """A stored glossary's dictionaries are kept per base language (`pt-BR` is `pt`)."""
    return tag.split("-")[0].lower()


class StoredTerms:
    """The stored glossaries a request names, for one language pair: a term of an earlier
    glossary wins over a later one's."""

    def __init__(self, indexes: Sequence[GlossaryIndex]) -> None:
        self.indexes = tuple(indexes)

    def entries_in(self, text: str) -> dict[str, str]:
        if len(self.indexes) == 1:
            return self.indexes[0].entries_in(text)
        found: dict[str, str] = {}
        for index in self.indexes:
            for term, required in index.entries_in(text).items():
                found.setdefault(term, required)
        return found


class GlossaryIndexes:
    """The indexes used lately, each under its glossary's id, revision and pair: a change
    to a glossary raises its revision, so no index made before it is used again. Bounded by
    the entries they hold together (the least recently used go first)."""

    def __init__(self, max_entries: int = 200_000) -> None:
        self.max_entries = max_entries
        self._indexes: OrderedDict[Hashable, GlossaryIndex] = OrderedDict()
        self._entries = 0

    def get(self, key: Hashable) -> GlossaryIndex | None:
        found = self._indexes.get(key)
        if found is not None:
            self._indexes.move_to_end(key)
        return found

    def put(self, key: Hashable, index: GlossaryIndex) -> None:
        replaced = self._indexes.pop(key, None)
        self._entries += len(index) - (len(replaced) if replaced is not None else 0)
        self._indexes[key] = index
        while self._entries > self.max_entries and len(self._indexes) > 1:
            _, evicted = self._indexes.popitem(last=False)
            self._entries -= len(evicted)
