"""A document job's translation memory: the upload's memory fields, checked at upload (an
unknown memory or another key's is a 404 then, not a failed job later), as the job's options
keep them."""

from __future__ import annotations

from typing import Protocol

import msgspec

from translate_server.errors import InvalidRequestError


class JobMemory(msgspec.Struct, frozen=True, kw_only=True):
    memory: str | None = None
    memory_threshold: float | None = None
    memory_owner: str = ""


class KnownMemories(Protocol):
    """What the check needs of the memories: a 404 for one the owner does not have."""

    async def get(self, owner: str, memory_id: str, param: str = ...) -> object: ...


async def job_memory(
    memories: KnownMemories | None,
    owner: str,
    memory_id: str | None,
    threshold: str | None,
    *,
    names: tuple[str, str] = ("memory", "memory_threshold"),
) -> JobMemory:
    """The job's memory from an upload's fields (named `names` on its route)."""
    if not memory_id:
        if threshold:
            raise InvalidRequestError(f"`{names[1]}` needs `{names[0]}`.", param=names[1])
        return JobMemory()
    value: float | None = None
    if threshold:
        try:
            value = float(threshold)
        except ValueError:
            value = -1.0
        if not 0 <= value <= 100:
            raise InvalidRequestError(f"`{names[1]}` is a number from 0 to 100.", param=names[1])
    if memories is None:
        raise InvalidRequestError("This server keeps no translation memories.", param=names[0])
    await memories.get(owner, memory_id, param=names[0])
    return JobMemory(memory=memory_id, memory_threshold=value, memory_owner=owner)
