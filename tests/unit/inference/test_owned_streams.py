"""A chunk generator run to its first `yield STARTED` runs its `finally` when it is closed
unread; one that was never started would not."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import pytest

from translate_server.inference.owned_streams import STARTED, opened


async def test_closed_unread_it_still_releases() -> None:
    released: list[str] = []

    async def chunks() -> AsyncGenerator[str, None]:
        try:
            yield STARTED
            yield "a"
        finally:
            released.append("ticket")

    stream = await opened(chunks())
    await stream.aclose()
    assert released == ["ticket"]


async def test_an_unstarted_generator_would_not() -> None:
    released: list[str] = []

    async def chunks() -> AsyncGenerator[str, None]:
        try:
            yield "a"
        finally:
            released.append("ticket")

    await chunks().aclose()
    assert released == []  # why `opened` exists


async def test_its_chunks_come_after_the_marker() -> None:
    async def chunks() -> AsyncGenerator[str, None]:
        yield STARTED
        yield "a"
        yield "b"

    assert [chunk async for chunk in await opened(chunks())] == ["a", "b"]


async def test_a_generator_without_the_marker_is_refused() -> None:
    closed: list[bool] = []

    async def chunks() -> AsyncGenerator[str, None]:
        try:
            yield "a"
        finally:
            closed.append(True)

    with pytest.raises(RuntimeError, match="STARTED"):
        await opened(chunks())
    assert closed == [True]
