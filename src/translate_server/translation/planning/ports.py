"""What translation needs from other domains, declared here as protocols so that translation
imports none of them: the composition root fills them (`registration.fill`). Model resolution
and adapter routing come from `inference.served_models`, below every domain."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from translate_server.services import Key


class FoundInMemory(Protocol):
    """A piece's best match in a memory: `exact` (its translation, the piece's protected
    spans put back), or the fuzzy `examples` a prompt shows, (source, target) pairs with the
    closest last."""

    @property
    def exact(self) -> str | None: ...

    @property
    def score(self) -> float:
        """The best match's score, 0-100."""
        ...

    @property
    def examples(self) -> tuple[tuple[str, str], ...]: ...


class StoredMemory(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def revision(self) -> int: ...


class MemoryLookup(Protocol):
    """The translation memories a request may name (`memory`), each its owner's."""

    async def get(self, owner: str, memory_id: str, param: str = ...) -> StoredMemory:
        """The memory (a 404 for an unknown one or another owner's)."""
        ...

    async def look_up(
        self,
        owner: str,
        memory_id: str,
        source_tag: str,
        target_tag: str,
        texts: Sequence[str],
        threshold: float,
    ) -> Sequence[FoundInMemory | None]:
        """Each text's best match at or above `threshold` (0-100), or None."""
        ...


MEMORY_LOOKUP: Key[MemoryLookup] = Key("memory lookup")


class StoredGlossary(Protocol):
    """A stored glossary, without its entries."""

    @property
    def glossary_id(self) -> str: ...

    @property
    def revision(self) -> int:
        """Raised by every change to its entries."""
        ...

    @property
    def pairs(self) -> frozenset[tuple[str, str]]:
        """Its dictionaries' (source, target) base languages."""
        ...


class GlossaryLookup(Protocol):
    """The stored glossaries a request may name (`glossary_id`), each its owner's."""

    async def describe(self, owner: str, glossary_id: str) -> StoredGlossary:
        """The glossary (a 404 for an unknown one or another owner's)."""
        ...

    async def entries(
        self, owner: str, glossary_id: str, source_lang: str, target_lang: str
    ) -> Mapping[str, str]:
        """The entries of its dictionary of the pair."""
        ...


GLOSSARY_LOOKUP: Key[GlossaryLookup] = Key("glossary lookup")
