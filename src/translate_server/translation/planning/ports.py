"""What translation needs from other domains, declared here as protocols so that translation
imports none of them: the composition root fills them (`registration.fill`). Model resolution
and adapter routing come from `inference.served_models`, below every domain."""

from __future__ import annotations

from collections.abc import Sequence
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
