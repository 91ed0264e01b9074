"""A stored glossary as every surface sees it: its dictionaries (one per language pair), their
entries (source term -> required translation), the limits they are held to and the 404.
DeepL's v2 and v3 shapes are built from these (compat/deepl); our own API's wire types are in
protocol.py."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass

import msgspec

from translate_server.errors import ApiError, InvalidRequestError, PayloadTooLargeError
from translate_server.text.languages import UnknownLanguageError, resolve_language

# A terminology base's scale: a translation reads only the entries whose term occurs in its
# text, found by an index (translation/planning/glossary.py), so the size costs no request.
MAX_ENTRIES = 10_000  # per dictionary
MAX_TERM_CHARS = 1_000
MAX_DICTIONARIES = 50  # per glossary: ours
# Entries are written into a prompt's instructions one per line: one that could break a line
# (any line-break class or other control character) could add instructions of its own. DeepL
# refuses C0 and C1 control characters and Unicode newlines in entries too.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class GlossaryNotFoundError(ApiError):
    """An unknown glossary, or another key's: the same answer."""

    status_code = 404
    code = "glossary_not_found"

    def __init__(self, what: str = "Glossary", param: str = "glossary_id") -> None:
        super().__init__(f"{what} not found.", param=param)


class DictionaryInfo(msgspec.Struct, kw_only=True):
    source_lang: str
    target_lang: str
    entry_count: int


@dataclass(frozen=True, slots=True)
class GlossaryRecord:
    """A glossary as stored, without its entries."""

    glossary_id: str
    name: str
    creation_time: str
    revision: int
    dictionaries: list[DictionaryInfo]

    @property
    def pairs(self) -> frozenset[tuple[str, str]]:
        return frozenset((d.source_lang, d.target_lang) for d in self.dictionaries)

    def dictionary(self, source: str, target: str) -> DictionaryInfo:
        for found in self.dictionaries:
            if (found.source_lang, found.target_lang) == (source, target):
                return found
        raise GlossaryNotFoundError(f"Dictionary {source}-{target}")


def base_language(code: str, param: str) -> str:
    """A glossary's language: the base language of `code` (`EN-GB` is `en`)."""
    try:
        return resolve_language(code.split("-")[0]).tag
    except UnknownLanguageError:
        raise InvalidRequestError(f"Value for '{param}' not supported.", param=param) from None


def entry_id(source_lang: str, target_lang: str, source_term: str) -> str:
    """An entry's id in its glossary: its dictionary's pair and a digest of its source term
    (unique in the dictionary), stable while its translation changes and safe in a path
    whatever the term holds."""
    digest = hashlib.sha256(source_term.encode()).hexdigest()[:16]
    return f"{source_lang}.{target_lang}.{digest}"


def entry_pair(entry: str) -> tuple[str, str, str]:
    """(source_lang, target_lang, digest) of an entry's id; a malformed one is the 404."""
    parts = entry.split(".")
    if len(parts) != 3 or not all(parts):
        raise GlossaryNotFoundError("Glossary entry", param="entry_id")
    return parts[0], parts[1], parts[2]


def check_term(term: str, param: str) -> str:
    """The term without surrounding blanks; an empty, too long or multi-line one is a 400."""
    stripped = term.strip()
    if not stripped:
        raise InvalidRequestError("Glossary terms must not be empty.", param=param)
    if len(stripped) > MAX_TERM_CHARS:
        raise InvalidRequestError(
            f"A glossary term may be at most {MAX_TERM_CHARS} characters; this one has "
            f"{len(stripped)}.",
            param=param,
            code="glossary_term_too_long",
        )
    if _CONTROL.search(stripped):
        raise InvalidRequestError(
            "Glossary terms must be single lines without control characters.",
            param=param,
            code="invalid_glossary_entry",
        )
    return stripped


def check_size(entries: Mapping[str, str], param: str = "entries") -> None:
    """More than MAX_ENTRIES in one dictionary is a 413 naming the limit."""
    if len(entries) > MAX_ENTRIES:
        raise PayloadTooLargeError(
            f"A glossary's dictionary may hold at most {MAX_ENTRIES} entries; this one would "
            f"hold {len(entries)}.",
            param=param,
            code="glossary_too_large",
        )
