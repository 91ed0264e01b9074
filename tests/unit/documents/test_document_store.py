from __future__ import annotations

from pathlib import Path

import pytest

from translate_server.documents.job import ReviewItem, SegmentTranslation
from translate_server.documents.store import JobStore
from translate_server.errors import DocumentNotFoundError


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


async def test_a_job_survives_a_restart_with_its_progress(tmp_path: Path) -> None:
    store = await JobStore.open(tmp_path, retention_seconds=60)
    job_id, key = await _create(store)
    await store.start(job_id)
    await store.save_translations(
        job_id, {0: SegmentTranslation("Hallo", 0.9), 2: SegmentTranslation("Welt", 0.2, True)}
    )
    await store.close()

    reopened = await JobStore.open(tmp_path, retention_seconds=60)
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
    await reopened.close()


async def test_the_key_is_required_and_never_stored(tmp_path: Path) -> None:
    store = await JobStore.open(tmp_path, retention_seconds=60)
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
    await store.close()
    stored = b"".join(p.read_bytes() for p in tmp_path.glob("jobs.sqlite3*"))
    assert key.encode() not in stored


async def test_finished_jobs_expire_after_the_retention_time(tmp_path: Path) -> None:
    clock = Clock()
    store = await JobStore.open(tmp_path, retention_seconds=100, clock=clock)
    done_id, _ = await _create(store)
    failed_id, _ = await _create(store)
    running_id, _ = await _create(store)
    done = await store.finish(done_id, b"translated")
    assert (done.status, done.segments_done) == ("done", 3)
    assert await store.read_result(done) == b"translated"
    failed = await store.fail(failed_id, "The engine failed.")
    assert (failed.status, failed.error) == ("error", "The engine failed.")
    clock.now += 99
    assert await store.expire() == []
    clock.now += 2
    assert sorted(await store.expire()) == sorted([done_id, failed_id])
    assert await store.get(done_id) is None and not (tmp_path / done_id).exists()
    assert (tmp_path / running_id / "source").exists()
    assert await store.count_by_status() == {"queued": 1}
    await store.close()


async def test_jobs_in_flight_are_counted_per_owner(tmp_path: Path) -> None:
    store = await JobStore.open(tmp_path, retention_seconds=60)
    first, _ = await _create(store, owner="a")
    await _create(store, owner="a")
    await _create(store, owner=None)
    await store.finish(first, b"")
    assert (
        await store.in_flight("a"),
        await store.in_flight(None),
        await store.in_flight("b"),
    ) == (1, 1, 0)
    await store.close()


async def test_seconds_remaining_follows_the_pace(tmp_path: Path) -> None:
    clock = Clock()
    store = await JobStore.open(tmp_path, retention_seconds=60, clock=clock)
    job_id, _ = await _create(store)
    job = await store.start(job_id)
    assert job.seconds_remaining(clock.now) is None
    clock.now += 10
    job = await store.save_translations(job_id, {0: SegmentTranslation("a")})
    assert job.seconds_remaining(clock.now) == pytest.approx(20.0)
    clock.now += 3600  # a restart after an hour down: the new run's pace alone counts
    job = await store.start(job_id)
    assert job.seconds_remaining(clock.now) is None
    clock.now += 5
    job = await store.save_translations(job_id, {1: SegmentTranslation("b")})
    assert job.seconds_remaining(clock.now) == pytest.approx(5.0)
    await store.close()


async def test_a_deleted_job_is_gone_with_its_files(tmp_path: Path) -> None:
    store = await JobStore.open(tmp_path, retention_seconds=60)
    job_id, key = await _create(store)
    await store.finish(job_id, b"result")
    await store.delete(job_id)
    assert await store.get(job_id) is None and not (tmp_path / job_id).exists()
    with pytest.raises(DocumentNotFoundError):
        await store.authorize(job_id, key)
    await store.close()


async def test_a_database_made_before_billing_gains_its_column(tmp_path: Path) -> None:
    import sqlite3

    store = await JobStore.open(tmp_path, retention_seconds=60)
    old_id, _ = await _create(store)
    await store.close()
    with sqlite3.connect(tmp_path / "jobs.sqlite3") as db:  # as an older release left it
        db.execute("ALTER TABLE jobs DROP COLUMN billed_to")
    reopened = await JobStore.open(tmp_path, retention_seconds=60)
    assert (await reopened.get(old_id)).billed_to is None
    job, _ = await reopened.create(
        data=b"Hi\n", format="txt", target_lang="DE", billed_to="digest-a"
    )
    assert (await reopened.get(job.id)).billed_to == "digest-a"
    await reopened.close()


async def test_a_database_made_before_estimates_gains_their_columns(tmp_path: Path) -> None:
    import sqlite3

    store = await JobStore.open(tmp_path, retention_seconds=60)
    old_id, _ = await _create(store)
    await store.start(old_id)
    await store.save_translations(old_id, {0: SegmentTranslation("Hallo")})
    await store.close()
    with sqlite3.connect(tmp_path / "jobs.sqlite3") as db:  # as an older release left it
        for table, column in (
            ("jobs", "needs_review"),
            ("jobs", "review"),
            ("translations", "estimate"),
            ("translations", "needs_review"),
        ):
            db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    reopened = await JobStore.open(tmp_path, retention_seconds=60)
    # A translation recorded before estimates: none known, nothing flagged.
    assert await reopened.translations(old_id) == {0: SegmentTranslation("Hallo")}
    await reopened.save_translations(old_id, {1: SegmentTranslation("Welt", 0.1, True)})
    review = [ReviewItem(segment=1, estimate=0.1, source="World", translation="Welt")]
    done = await reopened.finish(old_id, b"result", review, 1)
    assert (done.needs_review, done.review) == (1, review)
    await reopened.close()
