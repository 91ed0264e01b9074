"""Streams that hold what they were admitted with (an admission ticket, engine requests) until
they are closed, even when closed before anything was read from them.

An async generator that has not started runs none of its body when it is closed: not its
`finally` either. A service's chunk generator releases its ticket and closes its engine
requests in its `finally`, so one closed unread (a client gone between the handler's return
and the first byte) would hold them for ever. Its first `yield` is therefore `STARTED`, which
`opened` reads before the generator is handed out: from then on it is inside its `try`, and
closing it, read or not, runs its `finally`. Nothing is added per chunk.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any, TypeVar

T = TypeVar("T")

# What a chunk generator yields first, inside the `try` whose `finally` releases what it
# holds; typed Any so that it fits any generator's chunk type.
STARTED: Any = object()


async def opened(chunks: AsyncGenerator[T, None]) -> AsyncGenerator[T, None]:
    """`chunks`, run to its first `yield STARTED`."""
    first = await anext(chunks)
    if first is not STARTED:
        await chunks.aclose()
        raise RuntimeError("a chunk generator must yield STARTED first, inside its try")
    return chunks
