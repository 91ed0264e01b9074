"""Glossaries: required translations of terms, given to the model for the pieces that hold them,
and checked afterwards."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

from translate_server.errors import InvalidRequestError

MAX_ENTRIES = 256
MAX_TERM_CHARS = 200
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
        raise InvalidRequestError(
            f"A glossary may hold at most {MAX_ENTRIES} entries.", param=param
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


def _contains(text: str, term: str) -> bool:
    # Most terms do not occur at all, and most that occur do as whole words: both are found
    # by the literal scan.
    literal = _literal(term)
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
