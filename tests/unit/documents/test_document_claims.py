"""Claims on document jobs, as servers over one database see them: every test runs on SQLite
and on PostgreSQL (`backend`), each server a store with a name and a pool of its own."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from translate_server.documents.claims import JobTakenOverError
from translate_server.documents.job import SegmentTranslation
from translate_server.documents.store import InFlightLimitError, JobStore
from translate_server.storage.opening import StoreDatabases

from tests.support.databases import locations_at

LEASE = 30.0
SOURCE = b"1\n00:00:01,000 --> 00:00:02,000\nHi\n"


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def servers(
    database_location: str, tmp_path: Path, clock: Clock
) -> AsyncIterator[tuple[JobStore, JobStore]]:
    """Two servers' stores over one database."""
    async with AsyncExitStack() as stack:
        stores = []
        for name in ("a", "b"):
            databases = StoreDatabases(locations_at(database_location, tmp_path / "documents"))
            stack.push_async_callback(databases.close)
            database = await databases.migrated("jobs")
            stores.append(JobStore(database, 3600, clock, server=name))
        yield stores[0], stores[1]


async def _create(store: JobStore, owner: str = "", limit: int | None = None) -> str:
    job, _ = await store.create(
        data=SOURCE, format="srt", target_lang="DE", owner=owner, in_flight_limit=limit
    )
    return job.id


async def test_servers_claiming_at_once_take_each_job_once(
    servers: tuple[JobStore, JobStore],
) -> None:
    a, b = servers
    created = [await _create(a) for _ in range(12)]
    claimed = await asyncio.gather(*(store.claim_next(LEASE) for store in (a, b) * 8))
    taken = [job.id for job in claimed if job is not None]
    assert sorted(taken) == sorted(created)  # all twelve, none twice; four claims found none
    assert {job.status for job in claimed if job is not None} == {"translating"}


async def test_jobs_made_in_one_tick_are_taken_oldest_first(
    servers: tuple[JobStore, JobStore],
) -> None:
    a, b = servers  # the clock stands still: every job is made at the same time
    created = [await _create(a) for _ in range(20)]
    assert [job.id for job in await b.unfinished()] == created
    taken = [await (a, b)[n % 2].claim_next(LEASE) for n in range(20)]
    assert [job.id for job in taken if job is not None] == created


async def test_a_job_is_taken_over_once_its_lease_runs_out(
    servers: tuple[JobStore, JobStore], clock: Clock
) -> None:
    a, b = servers
    job_id = await _create(a)
    assert (await a.claim_next(LEASE)).id == job_id
    await a.save_translations(job_id, {0: SegmentTranslation("Hallo")})
    clock.now += LEASE - 1
    assert await b.claim_next(LEASE) is None  # a's lease still holds
    assert await a.renew([job_id], LEASE) == {job_id}  # the heartbeat extends it
    clock.now += LEASE - 1
    assert await b.claim_next(LEASE) is None
    clock.now += 2  # a fell silent: its lease ran out
    taken = await b.claim_next(LEASE)
    assert (taken.id, taken.segments_at_start) == (job_id, 1)  # a's piece is kept
    assert await b.translations(job_id) == {0: SegmentTranslation("Hallo")}
    assert await a.renew([job_id], LEASE) == set()  # a learns it lost the job
    for write in (
        a.save_translations(job_id, {1: SegmentTranslation("late")}),
        a.finish(job_id, b"a's result"),
        a.fail(job_id, "a's error"),
    ):
        with pytest.raises(JobTakenOverError):
            await write
    assert await b.translations(job_id) == {0: SegmentTranslation("Hallo")}
    done = await b.finish(job_id, b"b's result")
    assert (done.status, await b.read_result(done)) == ("done", b"b's result")


async def test_a_released_job_is_claimed_at_once(servers: tuple[JobStore, JobStore]) -> None:
    a, b = servers
    job_id = await _create(a)
    await a.claim_next(LEASE)
    assert await b.claim_next(LEASE) is None
    await a.release([job_id])  # a stops cleanly
    assert (await b.claim_next(LEASE)).id == job_id


async def test_a_finished_job_is_never_claimed_and_stays_its_servers(
    servers: tuple[JobStore, JobStore], clock: Clock
) -> None:
    a, b = servers
    job_id = await _create(a)
    await a.claim_next(LEASE)
    await a.finish(job_id, b"done")
    clock.now += 10 * LEASE
    assert await b.claim_next(LEASE) is None
    assert await a.renew([job_id], LEASE) == {job_id}  # not taken over: a's heartbeat lets it be


async def test_a_deleted_job_is_lost_to_its_server(servers: tuple[JobStore, JobStore]) -> None:
    a, b = servers
    job_id = await _create(a)
    await a.claim_next(LEASE)
    await b.delete(job_id)  # cancelled through the other server
    assert await a.renew([job_id], LEASE) == set()
    with pytest.raises(JobTakenOverError):
        await a.save_translations(job_id, {0: SegmentTranslation("Hallo")})


async def test_the_limit_per_owner_holds_across_servers(
    servers: tuple[JobStore, JobStore],
) -> None:
    a, b = servers
    results = await asyncio.gather(
        *(_create(store, owner="k", limit=3) for store in (a, b) * 6), return_exceptions=True
    )
    accepted = [r for r in results if isinstance(r, str)]
    refused = [r for r in results if isinstance(r, InFlightLimitError)]
    assert (len(accepted), len(refused)) == (3, 9)
    assert await b.in_flight("k") == 3
    await _create(a, owner="other", limit=3)  # another owner's count is its own
