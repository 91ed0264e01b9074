"""A memory's row (its id, its revision) remembered per replica (`storage.revisions`): two
stores over one PostgreSQL database, as two replicas have; an edit through one is seen
through the other within a second, by LISTEN/NOTIFY or, without a listener, by its polling
fallback; and a lookup of a remembered memory asks the database for entries only."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack

import pytest
from sqlalchemy import event

from translate_server.memory.entries import Entry
from translate_server.memory.store import MemoryStore
from translate_server.storage.opening import migrated_database
from translate_server.storage.revisions import POLL_SECONDS

from tests.support.harness import eventually
from tests.support.postgres import Cluster

ENTRY = Entry("Good morning.", "Guten Morgen.", "en", "de")


@pytest.fixture
async def replicas(postgres: Cluster) -> AsyncIterator[tuple[MemoryStore, MemoryStore]]:
    url = postgres.new_database()
    async with AsyncExitStack() as stack:
        one = MemoryStore(await stack.enter_async_context(migrated_database(url, "memory")))
        two = MemoryStore(await stack.enter_async_context(migrated_database(url, "memory")))
        yield one, two


async def _revision(store: MemoryStore, memory_id: str) -> int:
    found = await store.look_up("", memory_id, "en", "de", ["Good morning."], 75)
    assert found is not None
    return found[0].revision


async def test_an_edit_is_heard_by_the_other_replica(
    replicas: tuple[MemoryStore, MemoryStore],
) -> None:
    one, two = replicas
    watching = asyncio.create_task(two.revisions.watch())
    try:
        await eventually(lambda: two.revisions.listening, timeout=10)
        memory = await one.create("", "shared")
        await one.add("", memory.id, [ENTRY], 10)
        assert await _revision(two, memory.id) == 1

        statements: list[str] = []
        engine = two.database.engines.engine.sync_engine  # type: ignore[attr-defined]
        event.listen(engine, "before_cursor_execute", lambda *a: statements.append(a[2]))

        async def entries_only() -> bool:
            # Once the add's own notification is heard, the row stays remembered.
            statements.clear()
            await _revision(two, memory.id)
            return not any("FROM memories" in sql for sql in statements)

        for _ in range(100):
            if await entries_only():
                break
            await asyncio.sleep(0.05)
        assert await entries_only()

        await one.put_entry("", memory.id, Entry("Good night.", "Gute Nacht.", "en", "de"), 10)
        seen = asyncio.get_running_loop().time()
        while await _revision(two, memory.id) != 2:
            await asyncio.sleep(0.01)
        assert asyncio.get_running_loop().time() - seen < 1.0
    finally:
        watching.cancel()
        await asyncio.gather(watching, return_exceptions=True)


async def test_without_a_listener_an_edit_is_seen_by_polling(
    replicas: tuple[MemoryStore, MemoryStore],
) -> None:
    one, two = replicas  # `two` listens to nothing: its remembered rows last POLL_SECONDS
    memory = await one.create("", "shared")
    await one.add("", memory.id, [ENTRY], 10)
    assert await _revision(two, memory.id) == 1
    await one.remove_entry("", memory.id, 1)
    seen = asyncio.get_running_loop().time()
    while await _revision(two, memory.id) != 2:
        await asyncio.sleep(0.01)
    assert asyncio.get_running_loop().time() - seen < POLL_SECONDS + 2.0  # a busy machine
