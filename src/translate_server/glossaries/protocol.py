"""Our own glossary API's wire types (/glossaries): a glossary, its entries one by one, a TBX
import's outcome. DeepL's shapes of the same glossaries are compat/deepl's."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from translate_server.glossaries.model import MAX_TERM_CHARS, DictionaryInfo, GlossaryRecord
from translate_server.wire import RequestStruct, ResponseStruct

_Lang = Annotated[str, Meta(min_length=2, max_length=35, examples=["en"])]
_Term = Annotated[str, Meta(min_length=1, max_length=MAX_TERM_CHARS)]


class GlossaryObject(ResponseStruct, kw_only=True):
    id: str
    object: Literal["glossary"] = "glossary"
    name: str
    created: str
    revision: Annotated[
        int,
        Meta(
            description="Raised by every change to its entries: a translation never uses "
            "entries older than it."
        ),
    ]
    dictionaries: Annotated[
        list[DictionaryInfo], Meta(description="One per language pair (base languages).")
    ]

    @classmethod
    def of(cls, record: GlossaryRecord) -> GlossaryObject:
        return cls(
            id=record.glossary_id,
            name=record.name,
            created=record.creation_time,
            revision=record.revision,
            dictionaries=record.dictionaries,
        )


class GlossaryList(ResponseStruct, kw_only=True):
    object: Literal["list"] = "list"
    data: list[GlossaryObject]


class GlossaryDeleted(ResponseStruct, kw_only=True):
    id: str
    deleted: bool
    object: Literal["glossary"] = "glossary"


GlossaryName = Annotated[str, Meta(min_length=1, max_length=1024, examples=["product terms"])]


class RenameGlossaryRequest(RequestStruct, kw_only=True):
    name: GlossaryName


class CreateGlossaryRequest(RequestStruct, kw_only=True):
    name: GlossaryName
    source_lang: _Lang | None = None
    target_lang: _Lang | None = None
    entries: (
        Annotated[
            dict[str, str],
            Meta(
                description='Its first dictionary\'s entries, `{"source term": "translation"}`, '
                "for `source_lang` and `target_lang`."
            ),
        ]
        | None
    ) = None


class EntryObject(ResponseStruct, kw_only=True):
    id: Annotated[
        str,
        Meta(
            description="`<source_lang>.<target_lang>.<digest of the source term>`: stable "
            "while its translation changes."
        ),
    ]
    object: Literal["glossary.entry"] = "glossary.entry"
    source_lang: str
    target_lang: str
    source: str
    target: str


class EntryList(ResponseStruct, kw_only=True):
    object: Literal["list"] = "list"
    data: list[EntryObject]
    total: Annotated[int, Meta(description="Entries that match, across every page.")]
    offset: int
    limit: int
    revision: int


class NewEntryRequest(RequestStruct, kw_only=True):
    source: _Term
    target: _Term
    source_lang: Annotated[
        _Lang | None,
        Meta(description="With `target_lang`, the dictionary; optional where it has only one."),
    ] = None
    target_lang: _Lang | None = None


class EntryChangeRequest(RequestStruct, kw_only=True):
    source: _Term | None = None
    target: _Term | None = None


class EntryDeleted(ResponseStruct, kw_only=True):
    id: str
    deleted: bool
    object: Literal["glossary.entry"] = "glossary.entry"
    revision: int


class TbxImported(ResponseStruct, kw_only=True):
    glossary: GlossaryObject
    read: Annotated[int, Meta(description="Concepts with a term in both languages.")]
    added: Annotated[int, Meta(description="Entries new to the dictionary.")]
    replaced: Annotated[int, Meta(description="Entries whose translation the file replaced.")]
