"""The document jobs' store: a contract both backends keep (every test runs on SQLite and on
PostgreSQL, `backend`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from sqlalchemy import select

from translate_server.documents.job import ReviewItem, SegmentDetails, SegmentTranslation
from translate_server.documents.store import JobStore, ReviewChangedError
from translate_server.errors import DocumentNotFoundError
from translate_server.storage.job_tables import document_files, document_jobs
from translate_server.storage.opening import StoreDatabases

from tests.support.databases import locations_at

LEASE = 60.0


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def _create(store: JobStore, owner: str | None = None) -> tuple[str, str]:
    job, key = await store.create(
        data=b"1\n00:00:01,000 --> 00:00:02,000\nHi\n",
        format="srt",
        filename="talk.srt",
        target_lang="DE",
        owner=owner,
        options={"formality": "less"},
        billed_characters=2,
        segments_total=3,
    )
    return job.id, key


@asynccontextmanager
async def opened(
    location: str, tmp_path: Path, retention: float = 60, clock: Clock | None = None
) -> AsyncIterator[JobStore]:
    """The store at `location`, as a server opens it at each start."""
    databases = StoreDatabases(locations_at(location, tmp_path / "documents"))
    try:
        database = await databases.migrated("jobs")
        yield JobStore(database, retention, clock) if clock else JobStore(database, retention)
    finally:
        await databases.close()


@pytest.fixture
async def store(databases: StoreDatabases) -> JobStore:
    return JobStore(await databases.migrated("jobs"), retention_seconds=60)


async def test_a_job_survives_a_restart_with_its_progress(
    database_location: str, tmp_path: Path
) -> None:
    async with opened(database_location, tmp_path) as store:
        job_id, key = await _create(store)
        assert (await store.claim_next(LEASE)).id == job_id
        await store.save_translations(
            job_id, {0: SegmentTranslation("Hallo", 0.9), 2: SegmentTranslation("Welt", 0.2, True)}
        )

    async with opened(database_location, tmp_path) as reopened:
        [job] = await reopened.unfinished()
        assert (job.id, job.status, job.segments_done, job.segments_total) == (
            job_id,
            "translating",
            2,
            3,
        )
        assert (job.format, job.filename, job.target_lang, job.options) == (
            "srt",
            "talk.srt",
            "DE",
            {"formality": "less"},
        )
        assert await reopened.translations(job_id) == {
            0: SegmentTranslation("Hallo", 0.9),
            2: SegmentTranslation("Welt", 0.2, True),
        }
        assert await reopened.read_source(job) == b"1\n00:00:01,000 --> 00:00:02,000\nHi\n"
        assert (await reopened.authorize(job_id, key)).id == job_id


async def test_the_key_is_required_and_never_stored(store: JobStore, tmp_path: Path) -> None:
    job_id, key = await _create(store, owner="digest-a")
    assert (await store.authorize(job_id, key, "digest-a")).owner == "digest-a"
    for job, guess, owner in [
        (job_id, key[:-1] + "x", "digest-a"),
        (job_id, "", "digest-a"),
        (job_id, key, "digest-b"),
        (job_id, key, None),
        ("0" * 32, key, "digest-a"),
    ]:
        with pytest.raises(DocumentNotFoundError) as caught:
            await store.authorize(job, guess, owner)
        assert caught.value.status_code == 404
    rows = await store.database.read(lambda c: c.execute(select(document_jobs)).all())
    assert rows and all(key not in repr(tuple(row)) for row in rows)
    stored = b"".join(p.read_bytes() for p in tmp_path.rglob("jobs.sqlite3*"))
    assert key.encode() not in stored


async def test_a_job_without_an_owner_is_anyones_with_its_key(store: JobStore) -> None:
    job_id, key = await _create(store, owner=None)
    assert (await store.authorize(job_id, key, "digest-b")).owner == ""
    assert (await store.authorize(job_id, key)).id == job_id


async def test_finished_jobs_expire_after_the_retention_time(
    database_location: str, tmp_path: Path
) -> None:
    clock = Clock()
    async with opened(database_location, tmp_path, 100, clock) as store:
        done_id, _ = await _create(store)
        clock.now += 1  # claimed oldest first
        failed_id, _ = await _create(store)
        clock.now += 1
        running_id, _ = await _create(store)
        for _ in (done_id, failed_id):
            await store.claim_next(LEASE)
        done = await store.finish(done_id, b"translated")
        assert (done.status, done.segments_done) == ("done", 3)
        assert await store.read_result(done) == b"translated"
        failed = await store.fail(failed_id, "The engine failed.")
        assert (failed.status, failed.error) == ("error", "The engine failed.")
        clock.now += 99
        assert await store.expire() == []
        clock.now += 2
        assert sorted(await store.expire()) == sorted([done_id, failed_id])
        assert await store.get(done_id) is None
        assert await _files(store) == {(running_id, "source")}
        assert await store.count_by_status() == {"queued": 1}


async def test_jobs_in_flight_are_counted_per_owner(store: JobStore) -> None:
    first, _ = await _create(store, owner="a")
    await _create(store, owner="a")
    await _create(store, owner=None)
    assert (await store.claim_next(LEASE)).id == first
    await store.finish(first, b"")
    assert (
        await store.in_flight("a"),
        await store.in_flight(None),
        await store.in_flight(""),
        await store.in_flight("b"),
    ) == (1, 1, 1, 0)


async def test_seconds_remaining_follows_the_pace(database_location: str, tmp_path: Path) -> None:
    clock = Clock()
    async with opened(database_location, tmp_path, 60, clock) as store:
        await _create(store)
        job = await store.claim_next(LEASE)
        job_id = job.id
        assert job.seconds_remaining(clock.now) is None
        clock.now += 10
        job = await store.save_translations(job_id, {0: SegmentTranslation("a")})
        assert job.seconds_remaining(clock.now) == pytest.approx(20.0)
        clock.now += 3600  # a restart after an hour down: the new run's pace alone counts
        job = await store.claim_next(LEASE)
        assert job.seconds_remaining(clock.now) is None
        clock.now += 5
        job = await store.save_translations(job_id, {1: SegmentTranslation("b")})
        assert job.seconds_remaining(clock.now) == pytest.approx(5.0)


async def test_a_translation_saved_again_replaces_the_first(store: JobStore) -> None:
    job_id, _ = await _create(store)
    await store.claim_next(LEASE)
    await store.save_translations(job_id, {0: SegmentTranslation("a"), 1: SegmentTranslation("b")})
    job = await store.save_translations(job_id, {1: SegmentTranslation("B", 0.1, True)})
    assert await store.translations(job_id) == {
        0: SegmentTranslation("a"),
        1: SegmentTranslation("B", 0.1, True),
    }
    assert job.segments_done == 2


async def test_a_deleted_job_is_gone_with_its_files(store: JobStore) -> None:
    job_id, key = await _create(store)
    await store.claim_next(LEASE)
    await store.finish(job_id, b"result")
    await store.delete(job_id)
    assert await store.get(job_id) is None and await _files(store) == set()
    with pytest.raises(DocumentNotFoundError):
        await store.authorize(job_id, key)


async def test_a_file_of_ten_mebibytes_is_kept_whole(store: JobStore) -> None:
    data = bytes(range(256)) * (10 * 2**20 // 256)
    job, _ = await store.create(data=data, format="txt", target_lang="DE")
    await store.claim_next(LEASE)
    assert await store.read_source(job) == data
    done = await store.finish(job.id, data[::-1])
    assert await store.read_result(done) == data[::-1]


async def test_a_done_job_keeps_its_review_report(store: JobStore) -> None:
    job_id, _ = await _create(store)
    await store.claim_next(LEASE)
    await store.save_translations(job_id, {1: SegmentTranslation("Welt", 0.1, True)})
    review = [ReviewItem(segment=1, estimate=0.1, source="World", translation="Welt")]
    done = await store.finish(job_id, b"result", review, 1)
    assert (done.needs_review, done.review) == (1, review)
    assert await store.get(job_id) == done
    # The pieces are kept once done, for the job's review.
    assert await store.translations(job_id) == {1: SegmentTranslation("Welt", 0.1, True)}


async def test_a_review_replaces_the_segments_and_the_result_unless_they_changed(
    store: JobStore,
) -> None:
    job_id, _ = await _create(store)
    await store.claim_next(LEASE)
    warned = SegmentDetails(warnings=("echo",), memory_match={"match": "fuzzy", "score": 80.0})
    first = {0: SegmentTranslation("Hallo"), 1: SegmentTranslation("Welt", 0.1, True, warned)}
    await store.save_translations(job_id, first)
    done = await store.finish(job_id, b"result", [], 1)
    assert await store.translations(job_id) == first  # the details come back as they went
    approved = SegmentDetails(warnings=("echo",), machine="Welt", approved=True)
    reviewed = {**first, 1: SegmentTranslation("Erde", 0.1, False, approved)}
    with pytest.raises(ReviewChangedError):  # read before another edit: nothing written
        await store.review(job_id, reviewed, first, b"stale", [], 0)
    job = await store.review(job_id, first, reviewed, b"reviewed", [], 0)
    assert job.needs_review == 0 and await store.read_result(done) == b"reviewed"
    assert await store.translations(job_id) == reviewed


async def _files(store: JobStore) -> set[tuple[str, str]]:
    query = select(document_files.c.job_id, document_files.c.kind)
    return await store.database.read(lambda c: {(job, kind) for job, kind in c.execute(query)})
