"""Document jobs shared by servers over one database, each a runner with a store, a name and
a pool of its own: on SQLite and on PostgreSQL (`backend`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from translate_server.documents.limits import RunnerLimits
from translate_server.documents.runner import DocumentJobs
from translate_server.documents.store import JobStore
from translate_server.storage.opening import StoreDatabases

from tests.support.databases import locations_at
from tests.support.harness import eventually, read_until
from tests.unit.documents.test_document_runner import SRT, Translator

LIMITS = RunnerLimits(
    max_jobs=1,
    batches_in_flight=1,
    batch_segments=3,
    retry_delay=0.001,
    lease_seconds=1.0,
    claim_every=0.05,
    database_retry=0.01,
)
EXPECTED = SRT.replace(b"Sentence number", b"SENTENCE NUMBER")


class Server:
    def __init__(self, jobs: DocumentJobs, translator: Translator) -> None:
        self.jobs = jobs
        self.translator = translator


@pytest.fixture
async def servers(database_location: str, tmp_path: Path) -> AsyncIterator[list[Server]]:
    """Two started servers over one database; closed after the test."""
    async with AsyncExitStack() as stack:
        found = []
        for name in ("a", "b"):
            databases = StoreDatabases(locations_at(database_location, tmp_path / "documents"))
            stack.push_async_callback(databases.close)
            store = JobStore(await databases.migrated("jobs"), 3600, server=name)
            translator = Translator()
            jobs = DocumentJobs(store, translator, LIMITS)
            stack.push_async_callback(jobs.close)
            await jobs.start()
            found.append(Server(jobs, translator))
        yield found


async def test_jobs_submitted_to_one_server_are_shared_by_both(servers: list[Server]) -> None:
    a, b = servers
    a.translator.gate = asyncio.Event()  # a holds its first job: b has the room
    b.translator.gate = asyncio.Event()
    submitted = [await a.jobs.submit(SRT, filename=f"{i}.srt", target_lang="DE") for i in range(4)]
    await eventually(lambda: a.translator.in_flight and b.translator.in_flight)
    a.translator.gate.set()
    b.translator.gate.set()
    for job, key in submitted:  # status and result from the server that did not run it, too
        for server in servers:
            done = await read_until(
                lambda server=server, job=job, key=key: server.jobs.status(job.id, key),
                lambda found: found.finished,
            )
            assert done.status == "done"
            assert (await server.jobs.result(job.id, key))[1] == EXPECTED
    batches = len(a.translator.batches) + len(b.translator.batches)
    assert batches == 4 * 4  # four batches of three per job: no job run twice
    assert a.translator.batches and b.translator.batches


async def test_progress_is_watched_through_another_server(servers: list[Server]) -> None:
    a, b = servers
    await b.jobs.close()  # b takes no jobs: a runs this one
    job, key = await a.jobs.submit(SRT, filename="talk.srt", target_lang="DE")
    async with asyncio.timeout(20):
        states = [state async for state in b.jobs.watch(job.id, key)]
    assert states[-1].status == "done" and states[-1].segments_done == 12
    assert len(a.translator.batches) == 4 and not b.translator.batches


async def test_a_job_cancelled_through_another_server_stops_where_it_runs(
    servers: list[Server],
) -> None:
    a, b = servers
    await b.jobs.close()
    a.translator.gate = asyncio.Event()
    job, key = await a.jobs.submit(SRT, filename="talk.srt", target_lang="DE")
    await eventually(lambda: a.translator.in_flight)
    assert (await b.jobs.cancel(job.id, key)).status == "translating"
    await eventually(lambda: not a.translator.in_flight, timeout=10)  # a's heartbeat saw it
    a.translator.gate.set()
    assert await a.jobs.store.get(job.id) is None  # nothing written after the cancel
