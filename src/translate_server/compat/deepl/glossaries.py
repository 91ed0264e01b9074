"""DeepL glossaries: their entries' formats and their wire types, v2's (one language pair)
and v3's (dictionaries, one per pair). Kept per API key by glossaries/store.py."""

from __future__ import annotations

import csv
import io
from typing import Annotated

import msgspec
from msgspec import Meta

from translate_server.errors import InvalidRequestError
from translate_server.glossaries.model import (
    MAX_DICTIONARIES,
    DictionaryInfo,
    GlossaryRecord,
    base_language,
    check_size,
    check_term,
)

_Lang = Annotated[str, Meta(min_length=2, max_length=35)]


class Glossary(msgspec.Struct, kw_only=True):
    glossary_id: str
    name: str
    ready: bool
    source_lang: str
    target_lang: str
    creation_time: str
    entry_count: int


class StoredGlossary(msgspec.Struct, kw_only=True):
    info: Glossary
    entries: dict[str, str]


class MultilingualGlossary(msgspec.Struct, kw_only=True):
    """A v3 glossary: its dictionaries, one per language pair."""

    glossary_id: str
    name: str
    creation_time: str
    dictionaries: list[DictionaryInfo]

    @classmethod
    def of(cls, record: GlossaryRecord) -> MultilingualGlossary:
        return cls(
            glossary_id=record.glossary_id,
            name=record.name,
            creation_time=record.creation_time,
            dictionaries=record.dictionaries,
        )


class MultilingualGlossaryList(msgspec.Struct, kw_only=True):
    glossaries: list[MultilingualGlossary]


class DictionaryEntries(msgspec.Struct, kw_only=True):
    source_lang: str
    target_lang: str
    entries: str
    entries_format: str = "tsv"


class DictionaryEntriesList(msgspec.Struct, kw_only=True):
    dictionaries: list[DictionaryEntries]


class DictionaryBody(msgspec.Struct, kw_only=True):
    source_lang: _Lang
    target_lang: _Lang
    entries: str
    entries_format: str = "tsv"

    def parsed(self) -> tuple[str, str, dict[str, str]]:
        """(source, target, entries): base languages, as DeepL keeps them."""
        return (
            base_language(self.source_lang, "source_lang"),
            base_language(self.target_lang, "target_lang"),
            parse_entries(self.entries, self.entries_format.lower()),
        )


class MultilingualGlossaryCreate(msgspec.Struct, kw_only=True):
    name: Annotated[str, Meta(min_length=1, max_length=1024)]
    dictionaries: Annotated[list[DictionaryBody], Meta(min_length=1, max_length=MAX_DICTIONARIES)]
    auth_key: str | None = None


class MultilingualGlossaryPatch(msgspec.Struct, kw_only=True):
    name: Annotated[str, Meta(min_length=1, max_length=1024)] | None = None
    dictionaries: Annotated[list[DictionaryBody], Meta(max_length=MAX_DICTIONARIES)] | None = None
    auth_key: str | None = None


def language_pair(source_lang: str | None, target_lang: str | None) -> tuple[str, str]:
    """A dictionary's pair as a request names it (`source_lang`, `target_lang`), as base
    languages; both are needed."""
    found = []
    for param, value in (("source_lang", source_lang), ("target_lang", target_lang)):
        if not value:
            raise InvalidRequestError(f"Give `{param}`.", param=param)
        found.append(base_language(value, param))
    return found[0], found[1]


def distinct_pairs(
    dictionaries: list[tuple[str, str, dict[str, str]]],
) -> list[tuple[str, str, dict[str, str]]]:
    """The dictionaries of one request, each pair once (a repeated pair is a 400)."""
    seen: set[tuple[str, str]] = set()
    for source, target, _ in dictionaries:
        if (source, target) in seen:
            raise InvalidRequestError(
                f"The language pair {source}-{target} is given twice.", param="dictionaries"
            )
        seen.add((source, target))
    return dictionaries


def parse_entries(entries: str, entries_format: str) -> dict[str, str]:
    """DeepL's two formats: TSV (`source<TAB>target` per line) and CSV (`source,target`, and
    optionally the two languages after them)."""
    if entries_format == "tsv":
        rows = [line.split("\t") for line in entries.splitlines() if line.strip()]
    elif entries_format == "csv":
        rows = [row for row in csv.reader(io.StringIO(entries)) if any(c.strip() for c in row)]
    else:
        raise InvalidRequestError("entries_format must be `tsv` or `csv`.", param="entries_format")
    parsed: dict[str, str] = {}
    for number, row in enumerate(rows, 1):
        if len(row) < 2 or not row[0].strip() or not row[1].strip():
            raise InvalidRequestError(
                f"Entry {number} needs a source and a target term.", param="entries"
            )
        source = check_term(row[0], "entries")
        target = check_term(row[1], "entries")
        if source in parsed:
            raise InvalidRequestError(
                f"Entry {number} duplicates the source term `{source}`.", param="entries"
            )
        parsed[source] = target
    if not parsed:
        raise InvalidRequestError("A glossary needs at least one entry.", param="entries")
    check_size(parsed)
    return parsed


def entries_tsv(entries: dict[str, str]) -> str:
    return "\n".join(f"{source}\t{target}" for source, target in entries.items())
