"""Document jobs run in the background, by whichever server over the jobs' database has room:
each server claims queued jobs (`claims`: a lease in the job's row, renewed by a heartbeat
while the job runs), at most `max_jobs` at once, and translates each with `job_translation`
in bounded batches so that a document never floods admission. A job whose server dies is
taken over by another (or by the same one restarted) once its lease runs out, and resumes
from its recorded pieces; finished jobs are deleted once their retention time is over.

Clients reach their jobs here too, through any server: `submit` refuses what cannot be done
before any work (`intake`: the file; the per-owner limit counted in the database, across
servers), and status, result, progress (`watch`), `forget` and `cancel` go through the job's key.

Stopping (`close`) cancels the running jobs where they stand and lets their claims go; their
finished batches are already recorded, so the next server to claim each resumes it there. A
database that is briefly gone stops nothing: claims, heartbeats and the running jobs' writes
are tried again until it answers (`persist`). Other kinds of job (OpenAI's batches) share
the queue: see `job_kinds`.

A job submitted with `billed_to` (DeepL's `/v2/document`: the digest of the uploading key) adds
its characters to that usage through the injected `bill(billed_to, characters)`, once, when
it is done: not when it fails or is cancelled, whatever its status polls.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import suppress

import msgspec
import structlog

from translate_server.documents.claims import JobTakenOverError
from translate_server.documents.formats import FORMATS
from translate_server.documents.intake import checked
from translate_server.documents.job import DocumentOptions, Job
from translate_server.documents.job_changes import JobChanges
from translate_server.documents.job_kinds import JobRun, JobWork
from translate_server.documents.job_log import cause, summary
from translate_server.documents.job_translation import (
    Pin,
    Remember,
    Timings,
    Translate,
    translate_job,
)
from translate_server.documents.limits import RunnerLimits
from translate_server.documents.metrics import JobGauge
from translate_server.documents.persist import persistently
from translate_server.documents.store import InFlightLimitError, JobStore
from translate_server.errors import (
    ApiError,
    DocumentNotReadyError,
    StorageUnavailableError,
    TooManyDocumentsError,
)
from translate_server.limits.ticket import charge, count_document, documents_in_flight

log = structlog.get_logger("translate_server.documents")

# bill(billed_to, characters): add a done job's characters to that usage
Bill = Callable[[str, int], Awaitable[None]]


_DEFAULT_LIMITS = RunnerLimits()
# A watcher re-reads its job at least this often: another server may be running it.
WATCH_EVERY = 1.0


class DocumentJobs:
    def __init__(
        self,
        store: JobStore,
        translate: Translate,
        limits: RunnerLimits = _DEFAULT_LIMITS,
        gauge: JobGauge | None = None,
        bill: Bill | None = None,
        remember: Remember | None = None,
        pin: Pin | None = None,
    ) -> None:
        self.store = store
        self.translate = translate
        self.remember = remember
        self.pin = pin  # the model a new job keeps for its whole life, where there is a choice
        self.limits = limits
        self.gauge = gauge
        self.bill = bill
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._held: set[str] = set()  # jobs whose claim this server holds and renews
        self._stopped: set[str] = set()  # jobs whose task this runner cancelled
        self._changes = JobChanges()
        self._background: list[asyncio.Task[None]] = []
        self._wake = asyncio.Event()  # a job was submitted here, or one of ours ended
        self._claiming = asyncio.Lock()
        self._kinds: dict[str, JobWork] = {}
        self._formats = {found.name for found in FORMATS}  # the kinds of job it claims

    def add_kind(self, format: str, work: JobWork) -> None:
        """Run the jobs whose `format` is `format` with `work` (until then, left to others)."""
        self._kinds[format] = work
        self._formats.add(format)
        self.wake()

    def wake(self) -> None:
        """A job was queued here: claim it at once where there is room."""
        self._run_background()
        self._wake.set()

    # -- Lifecycle --------------------------------------------------------------------------
    async def start(self) -> list[str]:
        """Take the jobs no server runs (left by a stop, or queued) as far as there is room,
        and keep taking, renewing and expiring; the ids taken now."""
        await self.store.expire()
        taken = await self._claim_free()
        if taken:
            log.info("document_jobs_resumed", jobs=len(taken))
        self._run_background()
        await self._count()
        return taken

    def _run_background(self) -> None:
        if self._background:
            return
        for loop, name in (
            (self._claim_forever, "document-claims"),
            (self._renew_forever, "document-leases"),
            (self._expire_forever, "document-expiry"),
        ):
            self._background.append(asyncio.create_task(loop(), name=name))

    async def close(self) -> None:
        """Cancel the running jobs where they stand and let their claims go (the next server
        to claim each resumes it)."""
        held = set(self._held)
        self._stopped.update(self._tasks)
        tasks = [*self._tasks.values(), *self._background]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks.clear()
        self._background.clear()
        try:
            await self.store.release(held)
        except StorageUnavailableError as lost:  # their leases run out instead
            log.warning("document_claims_not_released", jobs=len(held), reason=lost.reason)

    async def _claim_free(self) -> list[str]:
        """Claim jobs while this server has room; their ids."""
        taken: list[str] = []
        async with self._claiming:
            while len(self._tasks) < self.limits.max_jobs:
                job = await self.store.claim_next(self.limits.lease_seconds, self._formats)
                if job is None:
                    break
                self._schedule(job)
                taken.append(job.id)
        return taken

    async def _claim_forever(self) -> None:
        while True:
            self._wake.clear()
            try:
                await self._claim_free()
            except StorageUnavailableError as lost:
                log.warning("document_jobs_wait_for_database", step="claim", reason=lost.reason)
            with suppress(TimeoutError):
                async with asyncio.timeout(self.limits.claim_every):
                    await self._wake.wait()

    async def _renew_forever(self) -> None:
        """The heartbeat: renew the running jobs' leases; stop a job found taken over (its
        lease ran out while this server could not renew it) or deleted."""
        while True:
            await asyncio.sleep(self.limits.lease_seconds / 3)
            held = set(self._held)
            try:
                kept = await self.store.renew(held, self.limits.lease_seconds)
            except StorageUnavailableError as lost:
                log.warning("document_jobs_wait_for_database", step="renew", reason=lost.reason)
                continue
            for job_id in held - kept:
                task = self._tasks.get(job_id)
                if job_id in self._held and task is not None:
                    log.warning("document_job_taken_over", document_id=job_id)
                    self._stopped.add(job_id)
                    task.cancel()

    async def _expire_forever(self) -> None:
        while True:
            await asyncio.sleep(self.limits.expire_every)
            try:
                expired = await self.store.expire()
            except StorageUnavailableError as lost:
                log.warning("document_jobs_wait_for_database", step="expire", reason=lost.reason)
                continue
            if expired:
                log.info("document_jobs_expired", jobs=len(expired))
                await self._count()

    async def _count(self) -> None:
        """Publish the jobs by status (after every change of status)."""
        if self.gauge is None:
            return
        with suppress(StorageUnavailableError):  # published again after the next change
            self.gauge.set(await self.store.count_by_status())

    # -- Client calls -----------------------------------------------------------------------
    async def submit(
        self,
        data: bytes,
        *,
        filename: str | None,
        target_lang: str,
        source_lang: str | None = None,
        owner: str | None = None,
        options: DocumentOptions | None = None,
        billed_to: str | None = None,
    ) -> tuple[Job, str]:
        """Check the file (`intake`: languages, format, that it can be read, size) and the
        owner's jobs in flight, bill its characters (`limits`), record the job, queue it; the
        job and its key. Every refusal is a 4xx here, before any work: 400 an unknown language
        or a file unsupported or unreadable, 413 too long, 429 too many."""
        intake = await checked(
            data,
            filename,
            target_lang,
            source_lang,
            options or DocumentOptions(),
            max_characters=self.limits.max_characters,
            pin=self.pin,
        )
        limit = documents_in_flight(self.limits.max_in_flight_per_owner)  # the caller's, if less
        await charge(intake.characters, (source_lang or "auto", target_lang))
        try:
            job, key = await self.store.create(
                data=data,
                format=intake.format.name,
                filename=filename,
                source_lang=source_lang,
                target_lang=target_lang,
                owner=owner,
                options=msgspec.to_builtins(intake.options),
                billed_characters=intake.characters,
                billed_to=billed_to,
                segments_total=intake.segments,
                in_flight_limit=limit,
            )
        except InFlightLimitError:
            raise TooManyDocumentsError(
                f"At most {limit} documents may be in translation at once; submit this one "
                "when one of them is done.",
                param="file",
            ) from None
        count_document()
        self._run_background()
        self._wake.set()  # claimed here at once where there is room, or by another server
        await self._count()
        return job, key

    async def status(self, job_id: str, key: str, owner: str | None = None) -> Job:
        return await self.store.authorize(job_id, key, owner)

    async def result(self, job_id: str, key: str, owner: str | None = None) -> tuple[Job, bytes]:
        job = await self.store.authorize(job_id, key, owner)
        if job.status != "done":
            raise DocumentNotReadyError(
                f"The document is not translated yet ({job.status}).", param="document_id"
            )
        return job, await self.store.read_result(job)

    async def forget(self, job_id: str, key: str, owner: str | None = None) -> None:
        """Delete a job and its files now (DeepL's clients download a result once)."""
        job = await self.store.authorize(job_id, key, owner)
        if not job.finished:
            return  # still running: deleted after its retention time instead
        await self.store.delete(job_id)
        await self._count()

    async def cancel(self, job_id: str, key: str, owner: str | None = None) -> Job:
        """Stop a job where it stands (its engine requests are aborted with it) and delete it
        and its files now, finished or not; the job as it stood when it was stopped."""
        job = await self.store.authorize(job_id, key, owner)
        task = self._tasks.get(job_id)
        if task is not None:
            self._stopped.add(job_id)
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            self._stopped.discard(job_id)
            job = await self.store.get(job_id) or job
        await self.store.delete(job_id)
        log.info("document_job_cancelled", job=job_id, status=job.status)
        await self._changes.notify(job_id)
        await self._count()
        return job

    async def watch(
        self, job_id: str, key: str, owner: str | None = None
    ) -> AsyncGenerator[Job, None]:
        """The job now and after every change, until it is finished (for a progress stream);
        a job cancelled meanwhile ends as an error that says so."""
        changed = self._changes.next(job_id)  # taken before reading: no change can slip between
        job = await self.store.authorize(job_id, key, owner)
        while True:
            yield job
            if job.finished:
                return
            with suppress(TimeoutError):  # a change made by another server wakes nobody here
                async with asyncio.timeout(WATCH_EVERY):
                    await changed.wait()
            changed = self._changes.next(job_id)
            current = await self.store.get(job_id)
            job = current or msgspec.structs.replace(
                job, status="error", error="The job was cancelled."
            )

    # -- Running ----------------------------------------------------------------------------
    def _schedule(self, job: Job) -> None:
        """Run a job this server has just claimed."""
        job_id = job.id
        self._held.add(job_id)
        task = asyncio.create_task(self._run(job), name=f"document-{job_id}")
        self._tasks[job_id] = task

        def ended(_: asyncio.Task[None]) -> None:
            self._tasks.pop(job_id, None)
            self._held.discard(job_id)
            self._stopped.discard(job_id)
            self._wake.set()  # room for another job

        task.add_done_callback(ended)

    async def _run(self, job: Job) -> None:
        job_id = job.id
        await self._changes.notify(job_id)
        await self._count()
        timings = Timings(start=time.perf_counter())
        try:
            job = await self._work(job, timings)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the job fails; the server goes on
            if job_id in self._stopped:  # stopped, not failed: it resumes on next start
                raise asyncio.CancelledError from exc
            await self._failed(job_id, cause(exc), timings)
        else:
            self._held.discard(job_id)  # done: nothing more to renew
            log.info("document_job", **summary(job, timings))
            await self._bill(job)
        finally:
            await self._changes.notify(job_id)
        await self._count()

    async def _work(self, job: Job, timings: Timings) -> Job:
        """The job run to its end: a document translated, or another kind's work."""
        run = JobRun(self.store, self.limits, self._changes.notify, self._stopped.__contains__)
        kind = self._kinds.get(job.format)
        if kind is not None:
            return await kind(job, run)
        stopped, notify = functools.partial(run.stopped, job.id), run.notify
        return await translate_job(
            job, timings, store=self.store, translate=self.translate, limits=self.limits,
            notify=notify, stopped=stopped, remember=self.remember,
        )  # fmt: skip

    async def _failed(self, job_id: str, exc: Exception, timings: Timings) -> None:
        """Record the job's failure, unless it is another server's now."""
        if isinstance(exc, JobTakenOverError):
            log.warning("document_job_taken_over", document_id=job_id)
            return
        message = exc.message if isinstance(exc, ApiError) else "Translation failed."
        try:
            job = await persistently(
                lambda: self.store.fail(job_id, message),
                step="fail",
                first_pause=self.limits.database_retry,
            )
        except JobTakenOverError:
            log.warning("document_job_taken_over", document_id=job_id)
            return
        log.warning(
            "document_job",
            **summary(job, timings),
            exc_info=exc if not isinstance(exc, ApiError) else None,
        )

    async def _bill(self, job: Job) -> None:
        """Only the run that recorded the job done gets here, so it is billed once. After that
        record, not before: a crash between the two then loses one count, where billing first
        would have the resumed run bill the job twice."""
        if job.billed_to is None or self.bill is None:
            return
        try:
            await self.bill(job.billed_to, job.billed_characters)
        except Exception:  # the job is done all the same; the count is what is lost
            log.exception(
                "document_usage_not_billed",
                document_id=job.id,
                billed_characters=job.billed_characters,
            )
