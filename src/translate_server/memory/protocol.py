"""The translation memories' wire types."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from translate_server.memory.store import MemoryInfo, Merged
from translate_server.wire import RequestStruct, ResponseStruct


class CreateMemoryRequest(RequestStruct, kw_only=True):
    name: Annotated[str, Meta(min_length=1, max_length=200, examples=["product strings"])]


class RenameMemoryRequest(CreateMemoryRequest, kw_only=True):
    """A memory's new name (its entries and revision unchanged)."""


class MemoryObject(ResponseStruct, kw_only=True):
    id: str
    object: Literal["translation_memory"] = "translation_memory"
    name: str
    entries: Annotated[int, Meta(description="Entries the memory holds.")]
    revision: Annotated[int, Meta(description="Imports so far: each one changes it.")]
    created_at: int
    updated_at: int

    @classmethod
    def of(cls, info: MemoryInfo) -> MemoryObject:
        return cls(
            id=info.id,
            name=info.name,
            entries=info.entries,
            revision=info.revision,
            created_at=int(info.created),
            updated_at=int(info.updated),
        )


class MemoryList(ResponseStruct, kw_only=True):
    object: Literal["list"] = "list"
    data: list[MemoryObject]


class MemoryDeleted(ResponseStruct, kw_only=True):
    id: str
    deleted: bool
    object: Literal["translation_memory"] = "translation_memory"


class MemoryImported(ResponseStruct, kw_only=True):
    memory: MemoryObject
    read: Annotated[int, Meta(description="Entries with a source and a translation in the file.")]
    added: Annotated[int, Meta(description="Entries new to the memory.")]
    replaced: Annotated[
        int,
        Meta(
            description="Entries whose source and languages (whitespace collapsed, placeholders "
            "masked) the memory or the file already had: the later translation is "
            "kept."
        ),
    ]

    @classmethod
    def of(cls, info: MemoryInfo, merged: Merged) -> MemoryImported:
        return cls(
            memory=MemoryObject.of(info),
            read=merged.read,
            added=merged.added,
            replaced=merged.replaced,
        )
