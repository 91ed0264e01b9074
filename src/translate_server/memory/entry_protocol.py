"""The wire types of a memory's entries (/memories/{id}/entries) and of corrections
(/translate/corrections)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import UNSET, Meta, UnsetType

from translate_server.memory.editing import StoredEntry
from translate_server.memory.entries import Entry
from translate_server.memory.protocol import MemoryObject
from translate_server.memory.store import MemoryInfo
from translate_server.wire import RequestStruct, ResponseStruct

Text = Annotated[str, Meta(min_length=1, max_length=20_000)]
Language = Annotated[str, Meta(min_length=2, max_length=35, examples=["en", "pt-BR"])]
Note = Annotated[str, Meta(max_length=2_000)]


class MemoryEntryRequest(RequestStruct, kw_only=True):
    source: Annotated[Text, Meta(examples=["Save changes?"])]
    target: Annotated[Text, Meta(examples=["Änderungen speichern?"])]
    source_lang: Language
    target_lang: Language
    note: Note | None = None

    def entry(self) -> Entry:
        return Entry(self.source, self.target, self.source_lang, self.target_lang, self.note)


class MemoryEntryPatch(RequestStruct, kw_only=True):
    """The fields to change; those left out keep their value (`note: null` removes it)."""

    source: Text | UnsetType = UNSET
    target: Text | UnsetType = UNSET
    source_lang: Language | UnsetType = UNSET
    target_lang: Language | UnsetType = UNSET
    note: Note | UnsetType | None = UNSET

    def changes(self) -> dict[str, Any]:
        fields = {name: getattr(self, name) for name in self.__struct_fields__}
        return {name: value for name, value in fields.items() if value is not UNSET}


class MemoryEntryObject(ResponseStruct, kw_only=True):
    id: int
    object: Literal["translation_memory_entry"] = "translation_memory_entry"
    memory: str
    memory_revision: Annotated[
        int, Meta(description="The memory's revision: every change to its entries raises it.")
    ]
    source: str
    target: str
    source_lang: str
    target_lang: str
    note: str | None = None

    @classmethod
    def of(cls, info: MemoryInfo, entry: StoredEntry) -> MemoryEntryObject:
        return cls(
            id=entry.id,
            memory=info.id,
            memory_revision=info.revision,
            source=entry.source,
            target=entry.target,
            source_lang=entry.source_lang,
            target_lang=entry.target_lang,
            note=entry.note,
        )


class MemoryEntryList(ResponseStruct, kw_only=True):
    object: Literal["list"] = "list"
    data: list[MemoryEntryObject]
    total: Annotated[int, Meta(description="Entries that match, on every page.")]
    offset: int
    limit: int
    has_more: bool


class MemoryEntryDeleted(ResponseStruct, kw_only=True):
    id: int
    object: Literal["translation_memory_entry"] = "translation_memory_entry"
    deleted: bool
    memory_revision: int


class CorrectionRequest(RequestStruct, kw_only=True):
    source: Annotated[Text, Meta(description="The text that was translated.")]
    translation: Annotated[
        str,
        Meta(
            max_length=20_000,
            description="The machine's translation, as it was answered (empty where none).",
        ),
    ]
    corrected: Annotated[Text, Meta(description="The translation as it should be.")]
    source_lang: Annotated[
        Language, Meta(description="The source's language (the detected one, not `auto`).")
    ]
    target_lang: Language
    memory: Annotated[
        str, Meta(description="The translation memory (POST /memories) the pair is kept in.")
    ]
    note: Note | None = None

    def entry(self) -> Entry:
        return Entry(self.source, self.corrected, self.source_lang, self.target_lang, self.note)


class CorrectionObject(ResponseStruct, kw_only=True):
    object: Literal["translation_correction"] = "translation_correction"
    memory: MemoryObject
    entry: MemoryEntryObject
    created: Annotated[
        bool,
        Meta(description="The memory had no entry of this source: one was added (else replaced)."),
    ]
    changed: Annotated[
        bool, Meta(description="The corrected text differs from the machine's translation.")
    ]
    similarity: Annotated[
        float,
        Meta(
            description="How much of the machine's translation was kept, 0-100 (rapidfuzz's "
            "ratio; 100: confirmed as it was)."
        ),
    ]
