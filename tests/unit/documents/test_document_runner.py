from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from sqlalchemy import select

from translate_server.documents.job import DocumentOptions, Job, SegmentTranslation
from translate_server.documents.limits import RunnerLimits
from translate_server.documents.runner import DocumentJobs
from translate_server.documents.store import JobStore
from translate_server.errors import (
    DocumentNotReadyError,
    EngineFailedError,
    InvalidRequestError,
    OverloadedError,
    PayloadTooLargeError,
    StorageUnavailableError,
    TooManyDocumentsError,
    UnsupportedDocumentFormatError,
)
from translate_server.storage.job_tables import document_jobs
from translate_server.storage.opening import StoreDatabases

from tests.support.databases import locations_at
from tests.support.harness import eventually, read_until

# Twelve one-sentence cues: twelve segments.
SRT = "".join(
    f"{i}\n00:00:{i:02d},000 --> 00:00:{i:02d},900\nSentence number {i}.\n\n" for i in range(1, 13)
).encode()
LIMITS = RunnerLimits(
    max_jobs=1, batches_in_flight=2, batch_segments=3, batch_chars=1000, retry_delay=0.001
)


class Translator:
    """Upper-cases; records each batch and how many were in flight at once; can be held
    (`gate`), or made to answer only its first `answers` batches and hang on the others."""

    def __init__(self, answers: int | None = None) -> None:
        self.answers = answers
        self.batches: list[list[str]] = []
        self.in_flight = 0
        self.most_in_flight = 0
        self.gate: asyncio.Event | None = None
        self.failures: list[Exception] = []
        self.calls: list[tuple[str | None, str, DocumentOptions]] = []

    async def __call__(
        self, texts: list[str], source: str | None, target: str, options: DocumentOptions
    ) -> list[SegmentTranslation]:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(0.001)
            if self.gate is not None:
                await self.gate.wait()
            if self.answers is not None and len(self.batches) >= self.answers:
                await asyncio.Event().wait()  # a batch the dying server never finishes
            if self.failures:
                raise self.failures.pop(0)
            self.batches.append(list(texts))
            self.calls.append((source, target, options))
            # Estimated low where the text says so ("5." and "9."): those need review.
            return [
                SegmentTranslation(text.upper(), 0.2, True)
                if text.endswith(("5.", "9."))
                else SegmentTranslation(text.upper(), 0.9, False)
                for text in texts
            ]
        finally:
            self.in_flight -= 1


async def _finished(jobs: DocumentJobs, job: Job, key: str, owner: str | None = None) -> list[Job]:
    async with asyncio.timeout(10):
        return [state async for state in jobs.watch(job.id, key, owner)]


@pytest.fixture
async def store(databases: StoreDatabases) -> JobStore:
    return JobStore(await databases.migrated("jobs"), retention_seconds=3600)


@asynccontextmanager
async def opened_store(location: str, tmp_path: Path) -> AsyncIterator[JobStore]:
    """The jobs' store at `location`, as a server opens it at each start."""
    databases = StoreDatabases(locations_at(location, tmp_path / "documents"))
    try:
        yield JobStore(await databases.migrated("jobs"), retention_seconds=3600)
    finally:
        await databases.close()


async def test_a_document_is_translated_in_bounded_batches(store: JobStore) -> None:
    translator = Translator()
    jobs = DocumentJobs(store, translator, LIMITS)
    await jobs.start()
    options = DocumentOptions(formality="more")
    job, key = await jobs.submit(
        SRT, filename="talk.srt", target_lang="DE", source_lang="EN", owner="k1", options=options
    )
    assert (job.status, job.segments_total, job.billed_characters) == (
        "queued",
        12,
        sum(len(f"Sentence number {i}.") for i in range(1, 13)),
    )
    states = await _finished(jobs, job, key, owner="k1")
    assert states[-1].status == "done"
    progress = [state.segments_done for state in states]
    assert progress == sorted(progress) and progress[-1] == 12
    assert [len(batch) for batch in translator.batches] == [3, 3, 3, 3]
    assert translator.most_in_flight == 2
    assert set(translator.calls) == {("EN", "DE", options)}
    done, result = await jobs.result(job.id, key, owner="k1")
    assert result == SRT.replace(b"Sentence number", b"SENTENCE NUMBER")
    assert done.seconds_remaining(0) == 0.0
    await jobs.close()


async def test_the_result_waits_for_the_end(store: JobStore) -> None:
    translator = Translator()
    translator.gate = asyncio.Event()
    jobs = DocumentJobs(store, translator, LIMITS)
    job, key = await jobs.submit(SRT, filename="talk.srt", target_lang="DE")
    with pytest.raises(DocumentNotReadyError) as caught:
        await jobs.result(job.id, key)
    assert caught.value.status_code == 409
    translator.gate.set()
    await _finished(jobs, job, key)
    await jobs.close()


async def test_a_job_resumes_after_a_crash_without_redoing_its_batches(
    database_location: str, tmp_path: Path
) -> None:
    async with opened_store(database_location, tmp_path) as store:
        first = Translator(answers=2)
        usage = Usage()
        jobs = DocumentJobs(
            store,
            first,
            RunnerLimits(max_jobs=1, batches_in_flight=1, batch_segments=3),
            bill=usage,
        )
        job, key = await jobs.submit(
            SRT, filename="talk.srt", target_lang="DE", billed_to="digest-a"
        )
        await read_until(
            lambda: store.get(job.id), lambda found: found.segments_done >= 6, every=0.001
        )
        await jobs.close()  # the server stops while the third batch is in the engine
    assert usage.bills == []

    async with opened_store(database_location, tmp_path) as store:
        second = Translator()
        restarted = DocumentJobs(store, second, LIMITS, bill=usage)
        assert await restarted.start() == [job.id]
        states = await _finished(restarted, job, key)
        assert states[-1].status == "done"
        assert usage.bills == [("digest-a", job.billed_characters)]  # by the run that finished
        translated_before = {text for batch in first.batches for text in batch}
        translated_after = [text for batch in second.batches for text in batch]
        assert translated_before.isdisjoint(translated_after)
        assert len(translated_before) + len(translated_after) == 12
        _, result = await restarted.result(job.id, key)
        assert result == SRT.replace(b"Sentence number", b"SENTENCE NUMBER")
        await restarted.close()
        await store.close()


class Usage:
    """The `bill` a runner is given: records each (billed_to, characters); can fail."""

    def __init__(self, fails: bool = False) -> None:
        self.fails = fails
        self.bills: list[tuple[str, int]] = []

    async def __call__(self, billed_to: str, characters: int) -> None:
        if self.fails:
            raise OSError("disk I/O error")
        self.bills.append((billed_to, characters))


async def test_a_done_job_is_billed_once_and_only_where_it_names_a_payer(store: JobStore) -> None:
    usage = Usage()
    jobs = DocumentJobs(store, Translator(), LIMITS, bill=usage)
    billed, billed_key = await jobs.submit(
        SRT, filename="a.srt", target_lang="DE", billed_to="digest-a"
    )
    unbilled, unbilled_key = await jobs.submit(SRT, filename="b.srt", target_lang="DE")
    assert (await _finished(jobs, billed, billed_key))[-1].status == "done"
    assert (await _finished(jobs, unbilled, unbilled_key))[-1].status == "done"
    for _ in range(3):  # its status read again and again, its result fetched, then forgotten
        assert (await jobs.status(billed.id, billed_key)).status == "done"
    await jobs.result(billed.id, billed_key)
    await jobs.forget(billed.id, billed_key)
    assert usage.bills == [("digest-a", billed.billed_characters)]
    await jobs.close()


async def test_a_failed_or_cancelled_job_bills_nothing(store: JobStore) -> None:
    usage = Usage()
    translator = Translator()
    translator.failures = [RuntimeError("engine exploded")]
    jobs = DocumentJobs(store, translator, LIMITS, bill=usage)
    failed, failed_key = await jobs.submit(
        SRT, filename="a.srt", target_lang="DE", billed_to="digest-a"
    )
    assert (await _finished(jobs, failed, failed_key))[-1].status == "error"
    translator.gate = asyncio.Event()  # held: the next job is cancelled in flight
    held, held_key = await jobs.submit(
        SRT, filename="b.srt", target_lang="DE", billed_to="digest-a"
    )
    await eventually(lambda: translator.in_flight, every=0.001)
    assert (await jobs.cancel(held.id, held_key)).status == "translating"
    translator.gate.set()
    assert usage.bills == []
    await jobs.close()


async def test_a_bill_that_fails_is_logged_and_the_job_is_done(store: JobStore) -> None:
    from structlog.testing import capture_logs

    jobs = DocumentJobs(store, Translator(), LIMITS, bill=Usage(fails=True))
    with capture_logs() as logs:
        job, key = await jobs.submit(SRT, filename="a.srt", target_lang="DE", billed_to="digest-a")
        assert (await _finished(jobs, job, key))[-1].status == "done"
    [line] = [entry for entry in logs if entry["event"] == "document_usage_not_billed"]
    assert (line["log_level"], line["document_id"], line["billed_characters"]) == (
        "error",
        job.id,
        job.billed_characters,
    )
    await jobs.close()


async def test_overloaded_batches_are_retried(store: JobStore) -> None:
    translator = Translator()
    translator.failures = [OverloadedError("busy", retry_after=0.01)] * 2
    jobs = DocumentJobs(store, translator, LIMITS)
    job, key = await jobs.submit(SRT, filename="talk.srt", target_lang="DE")
    assert (await _finished(jobs, job, key))[-1].status == "done"
    await jobs.close()


async def test_a_batch_waits_out_a_lost_database_however_many_tries_it_takes(
    store: JobStore,
) -> None:
    # The job's memory lives in the database: its batches wait for it, never fail the job.
    translator = Translator()
    lost = StorageUnavailableError("postgresql://db/x", "connection refused")
    translator.failures = [lost] * (LIMITS.max_retries + 3)
    jobs = DocumentJobs(store, translator, LIMITS)
    job, key = await jobs.submit(SRT, filename="talk.srt", target_lang="DE")
    async with asyncio.timeout(30):
        assert (await _finished(jobs, job, key))[-1].status == "done"
    await jobs.close()


async def test_a_batch_the_engine_aborted_is_tried_again(store: JobStore) -> None:
    # A draining server aborts every engine request once its grace runs out, documents'
    # included: the engine's trouble, not the document's.
    translator = Translator()
    translator.failures = [EngineFailedError("The engine aborted the request.", code="aborted")]
    jobs = DocumentJobs(store, translator, LIMITS)
    job, key = await jobs.submit(SRT, filename="talk.srt", target_lang="DE")
    assert (await _finished(jobs, job, key))[-1].status == "done"
    await jobs.close()


class FailsWhenCancelled(Translator):
    """Its batches never end; cancelled, it answers with the error an engine request
    aborted under it gives, as a stopping server's may."""

    async def __call__(self, texts, source, target, options):
        self.in_flight += 1
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            raise EngineFailedError("The engine aborted the request.", code="aborted") from None
        finally:
            self.in_flight -= 1


async def test_a_job_stopped_with_its_server_resumes_even_if_its_batch_ended_in_error(
    database_location: str, tmp_path: Path
) -> None:
    async with opened_store(database_location, tmp_path) as store:
        translator = FailsWhenCancelled()
        jobs = DocumentJobs(store, translator, LIMITS)
        job, key = await jobs.submit(SRT, filename="talk.srt", target_lang="DE")
        async with asyncio.timeout(10):
            while translator.in_flight == 0:
                await asyncio.sleep(0.001)
            await jobs.close()  # the server stops
        assert (await store.get(job.id)).status == "translating"  # not failed

    async with opened_store(database_location, tmp_path) as store:
        restarted = DocumentJobs(store, Translator(), LIMITS)
        assert await restarted.start() == [job.id]
        assert (await _finished(restarted, job, key))[-1].status == "done"
        await restarted.close()


async def test_a_failing_translator_fails_the_job_not_the_server(store: JobStore) -> None:
    translator = Translator()
    translator.failures = [RuntimeError("engine exploded")]
    jobs = DocumentJobs(store, translator, LIMITS)
    broken, broken_key = await jobs.submit(SRT, filename="a.srt", target_lang="DE")
    final = (await _finished(jobs, broken, broken_key))[-1]
    assert (final.status, final.error) == ("error", "Translation failed.")
    fine, fine_key = await jobs.submit(b"Hello.\n", filename="b.txt", target_lang="DE")
    assert (await _finished(jobs, fine, fine_key))[-1].status == "done"
    assert (await jobs.result(fine.id, fine_key))[1] == b"HELLO.\n"
    await jobs.close()


async def test_a_client_error_from_the_translator_is_the_job_error(store: JobStore) -> None:
    translator = Translator()
    translator.failures = [InvalidRequestError("The model cannot translate into Klingon.")]
    jobs = DocumentJobs(store, translator, LIMITS)
    job, key = await jobs.submit(SRT, filename="a.srt", target_lang="tlh")
    final = (await _finished(jobs, job, key))[-1]
    assert (final.status, final.error) == ("error", "The model cannot translate into Klingon.")
    await jobs.close()


async def test_an_unknown_language_is_refused_before_any_work(store: JobStore) -> None:
    translator = Translator()
    jobs = DocumentJobs(store, translator, LIMITS)
    for fields, param in (
        ({"target_lang": "XX"}, "target_lang"),
        ({"target_lang": "de", "source_lang": "q!"}, "source_lang"),
    ):
        with pytest.raises(InvalidRequestError) as refused:
            await jobs.submit(SRT, filename="a.srt", **fields)
        assert (refused.value.code, refused.value.param) == ("unsupported_language", param)
    assert await store.in_flight(None) == 0 and not translator.calls
    await jobs.close()


async def test_documents_over_the_limits_are_refused(store: JobStore) -> None:
    translator = Translator()
    translator.gate = asyncio.Event()  # nothing finishes while the limits are tried
    limits = RunnerLimits(max_characters=100, max_in_flight_per_owner=1)
    jobs = DocumentJobs(store, translator, limits)
    with pytest.raises(PayloadTooLargeError) as too_long:
        await jobs.submit(SRT, filename="a.srt", target_lang="DE", owner="a")
    assert (too_long.value.status_code, too_long.value.code) == (413, "document_too_long")
    small = b"1\n00:00:01,000 --> 00:00:02,000\nHi.\n"
    job, key = await jobs.submit(small, filename="a.srt", target_lang="DE", owner="a")
    with pytest.raises(TooManyDocumentsError) as too_many:
        await jobs.submit(small, filename="b.srt", target_lang="DE", owner="a")
    assert (too_many.value.status_code, too_many.value.code) == (429, "too_many_documents")
    await jobs.submit(small, filename="c.srt", target_lang="DE", owner="b")  # another owner
    translator.gate.set()
    await _finished(jobs, job, key, owner="a")
    await jobs.submit(small, filename="d.srt", target_lang="DE", owner="a")  # a slot again
    await jobs.close()


async def test_a_done_job_reports_the_segments_to_review(store: JobStore) -> None:
    jobs = DocumentJobs(store, Translator(), LIMITS)
    job, key = await jobs.submit(SRT, filename="talk.srt", target_lang="DE")
    done = (await _finished(jobs, job, key))[-1]
    assert done.needs_review == 2
    assert [(item.segment, item.estimate) for item in done.review or []] == [(4, 0.2), (8, 0.2)]
    assert done.review is not None and done.review[0].source == "Sentence number 5."
    assert done.review[0].translation == "SENTENCE NUMBER 5."
    assert (await store.get(job.id)) == done  # kept with the job
    await jobs.close()


async def test_unsupported_files_are_refused_before_a_job_exists(store: JobStore) -> None:
    jobs = DocumentJobs(store, Translator(), LIMITS)
    with pytest.raises(UnsupportedDocumentFormatError):
        await jobs.submit(b"%PDF-1.7", filename="scan.pdf", target_lang="DE")
    assert await store.count_by_status() == {}


_CHILD = """
import asyncio, sys
from translate_server.documents.limits import RunnerLimits
from translate_server.documents.job import SegmentTranslation
from translate_server.documents.runner import DocumentJobs
from translate_server.documents.store import JobStore
from translate_server.storage.opening import migrated_database

async def translate(texts, source, target, options):
    if translate.calls >= 2:
        await asyncio.Event().wait()
    translate.calls += 1
    return [SegmentTranslation(text.upper(), 0.2, True) for text in texts]
translate.calls = 0

async def main():
    async with migrated_database(sys.argv[1], "jobs") as database:
        store = JobStore(database, retention_seconds=3600)
        limits = RunnerLimits(batches_in_flight=1, batch_segments=3, lease_seconds=1.0)
        jobs = DocumentJobs(store, translate, limits)
        job, key = await jobs.submit(sys.stdin.buffer.read(), filename="talk.srt", target_lang="DE")
        print(job.id, key, flush=True)
        await asyncio.Event().wait()

asyncio.run(main())
"""


async def test_a_job_resumes_after_its_process_is_killed(
    database_location: str, tmp_path: Path
) -> None:
    jobs_url = locations_at(database_location, tmp_path / "documents").jobs
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _CHILD,
        jobs_url.render_as_string(hide_password=False),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    child.stdin.write(SRT)
    child.stdin.close()
    job_id, key = (await asyncio.wait_for(child.stdout.readline(), 30)).decode().split()
    async with opened_store(database_location, tmp_path) as store:
        async with asyncio.timeout(30):
            while (await store.get(job_id)).segments_done < 6:
                await asyncio.sleep(0.01)
        child.kill()  # no clean shutdown: SIGKILL mid-job
        await child.wait()
        lease_until = await _lease_until(store, job_id)

        translator = Translator()
        jobs = DocumentJobs(store, translator, LIMITS)
        await jobs.start()  # the dead server's claim holds until its lease runs out
        job = await store.get(job_id)
        done = (await _finished(jobs, job, key))[-1]
        assert done.status == "done"
        assert (await store.get(job_id)).started_at >= lease_until  # taken over, not before
        assert sum(len(batch) for batch in translator.batches) == 6
        # What the first run flagged is kept (it flagged all six), then the second run's "9.".
        assert [item.segment for item in done.review or []] == [0, 1, 2, 3, 4, 5, 8]
        assert (await jobs.result(job_id, key))[1] == SRT.replace(
            b"Sentence number", b"SENTENCE NUMBER"
        )
        await jobs.close()


async def _lease_until(store: JobStore, job_id: str) -> float:
    jobs = document_jobs.c
    query = select(jobs.lease_until).where(jobs.id == job_id)
    return float(await store.database.read(lambda c: c.execute(query).scalar_one()))


class ContextTranslator(Translator):
    """Records the contexts a localization file gives its segments."""

    def __init__(self) -> None:
        super().__init__()
        self.contexts: list[str | None] = []

    async def __call__(  # type: ignore[override]
        self,
        texts: list[str],
        source: str | None,
        target: str,
        options: DocumentOptions,
        contexts: list[str | None] | None = None,
    ) -> list[SegmentTranslation]:
        self.contexts.extend(contexts or [None] * len(texts))
        return await super().__call__(texts, source, target, options)


async def test_a_localization_file_is_a_job_with_its_plurals_and_contexts(store: JobStore) -> None:
    translate = ContextTranslator()
    jobs = DocumentJobs(store, translate, LIMITS)
    data = b'{"n_one": "%d file", "n_other": "%d files", "title": "Files"}'
    job, key = await jobs.submit(data, filename="en.json", target_lang="pl", owner="k1")
    await _finished(jobs, job, key, "k1")
    _, result = await jobs.result(job.id, key, owner="k1")
    assert result == (  # the translator's `%D` is no placeholder: nothing to put back
        b'{"n_one": "%D FILE", "n_few": "%D FILES", "n_many": "%D FILES", '
        b'"n_other": "%D FILES", "title": "FILES"}'
    )
    assert sum(1 for c in translate.contexts if c and "few: 2" in c) == 1
