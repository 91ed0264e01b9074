"""Document jobs run in the background: at most `max_jobs` at once, each translated by
`job_translation` in bounded batches so that a document never floods admission; jobs left
unfinished by a stop resume on start, and finished ones are deleted once their retention time
is over.

Clients reach their jobs here too: `submit` refuses what cannot be done before any work, and
status, result, progress (`watch`), `forget` and `cancel` go through the job's key.

Stopping (`close`) cancels the running jobs where they stand; their finished batches are
already recorded, so the next start resumes each one where it stopped.

A job submitted with `billed_to` (DeepL's `/v2/document`: the digest of the uploading key) adds
its characters to that usage through the injected `bill(billed_to, characters)`, once, when
it is done: not when it fails or is cancelled, whatever its status polls.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Awaitable, Callable

import msgspec
import structlog

from translate_server.documents.formats import detect_format, extract
from translate_server.documents.job import DocumentOptions, Job
from translate_server.documents.job_changes import JobChanges
from translate_server.documents.job_translation import (
    Pin,
    Remember,
    Timings,
    Translate,
    format_options,
    translate_job,
)
from translate_server.documents.limits import RunnerLimits
from translate_server.documents.metrics import JobGauge
from translate_server.documents.store import JobStore
from translate_server.errors import (
    ApiError,
    DocumentNotReadyError,
    PayloadTooLargeError,
    TooManyDocumentsError,
)
from translate_server.text.languages import requested_language

log = structlog.get_logger("translate_server.documents")

# bill(billed_to, characters): add a done job's characters to that usage
Bill = Callable[[str, int], Awaitable[None]]

_DEFAULT_LIMITS = RunnerLimits()


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
        self._slots = asyncio.Semaphore(limits.max_jobs)
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._stopped: set[str] = set()  # jobs whose task this runner cancelled
        self._changes = JobChanges()
        self._expiry: asyncio.Task[None] | None = None
        self._admitting = asyncio.Lock()  # counting an owner's jobs and adding one, at once

    # -- Lifecycle --------------------------------------------------------------------------
    async def start(self) -> list[str]:
        """Resume every unfinished job and start deleting expired ones; the resumed ids."""
        await self.store.expire()
        resumed = [job.id for job in await self.store.unfinished()]
        for job_id in resumed:
            self._schedule(job_id)
        if resumed:
            log.info("document_jobs_resumed", jobs=len(resumed))
        self._expiry = asyncio.create_task(self._expire_forever(), name="document-expiry")
        await self._count()
        return resumed

    async def close(self) -> None:
        """Cancel the running jobs where they stand (they resume on the next start)."""
        self._stopped.update(self._tasks)
        tasks = [*self._tasks.values(), *([self._expiry] if self._expiry else [])]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks.clear()

    async def _expire_forever(self) -> None:
        while True:
            await asyncio.sleep(self.limits.expire_every)
            expired = await self.store.expire()
            if expired:
                log.info("document_jobs_expired", jobs=len(expired))
                await self._count()

    async def _count(self) -> None:
        """Publish the jobs by status (after every change of status)."""
        if self.gauge is not None:
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
        """Check the file (its format, that it can be read, its size) and the owner's jobs in
        flight, record the job, queue it; the job and its key. Every refusal is a 4xx here,
        before any work: 400 an unknown language, a file unsupported or unreadable, 413 too long,
        429 too many."""
        options = options or DocumentOptions()
        requested_language(target_lang, "target_lang")
        if source_lang:
            requested_language(source_lang, "source_lang")
        fmt = detect_format(filename, data)
        extracted = await asyncio.to_thread(
            extract, fmt, data, format_options(target_lang, options)
        )
        characters = sum(len(s) for s in extracted.segments)
        limit = self.limits.max_characters
        if limit is not None and characters > limit:
            raise PayloadTooLargeError(
                f"The document has {characters} characters to translate; at most {limit} are "
                "accepted.",
                param="file",
                code="document_too_long",
            )
        if self.pin is not None:  # may detect the source language: off the loop
            options = await asyncio.to_thread(
                self.pin, source_lang, target_lang, extracted.segments, options
            )
        async with self._admitting:
            await self._check_in_flight(owner)
            job, key = await self.store.create(
                data=data,
                format=fmt.name,
                filename=filename,
                source_lang=source_lang,
                target_lang=target_lang,
                owner=owner,
                options=msgspec.to_builtins(options),
                billed_characters=characters,
                billed_to=billed_to,
                segments_total=len(extracted.segments),
            )
        self._schedule(job.id)
        await self._count()
        return job, key

    async def _check_in_flight(self, owner: str | None) -> None:
        limit = self.limits.max_in_flight_per_owner
        if limit is not None and await self.store.in_flight(owner) >= limit:
            raise TooManyDocumentsError(
                f"At most {limit} documents may be in translation at once; submit this one "
                "when one of them is done.",
                param="file",
            )

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
            await changed.wait()
            changed = self._changes.next(job_id)
            current = await self.store.get(job_id)
            job = current or msgspec.structs.replace(
                job, status="error", error="The job was cancelled."
            )

    # -- Running ----------------------------------------------------------------------------
    def _schedule(self, job_id: str) -> None:
        task = asyncio.create_task(self._run(job_id), name=f"document-{job_id}")
        self._tasks[job_id] = task
        task.add_done_callback(lambda _: self._tasks.pop(job_id, None))

    async def _run(self, job_id: str) -> None:
        async with self._slots:
            job = await self.store.start(job_id)
            await self._changes.notify(job_id)
            await self._count()
            timings = Timings(start=time.perf_counter())
            try:
                job = await translate_job(
                    job,
                    timings,
                    store=self.store,
                    translate=self.translate,
                    limits=self.limits,
                    notify=self._changes.notify,
                    stopped=lambda: job_id in self._stopped,
                    remember=self.remember,
                )
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the job fails; the server goes on
                if job_id in self._stopped:  # stopped, not failed: it resumes on next start
                    raise asyncio.CancelledError from exc
                exc = _cause(exc)
                message = exc.message if isinstance(exc, ApiError) else "Translation failed."
                job = await self.store.fail(job_id, message)
                log.warning(
                    "document_job",
                    **_summary(job, timings),
                    exc_info=exc if not isinstance(exc, ApiError) else None,
                )
            else:
                log.info("document_job", **_summary(job, timings))
                await self._bill(job)
            finally:
                await self._changes.notify(job_id)
        await self._count()

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


def _cause(exc: Exception) -> Exception:
    """The first failure inside a task group's exception group."""
    while isinstance(exc, ExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _summary(job: Job, timings: Timings) -> dict[str, object]:
    return {
        "document_id": job.id,
        "status": job.status,
        "format": job.format,
        "target_lang": job.target_lang,
        "segments": job.segments_total,
        "billed_characters": job.billed_characters,
        "error": job.error,
        "total_s": round(time.perf_counter() - timings.start, 4),
        **{f"{phase}_s": seconds for phase, seconds in timings.phases.items()},
    }
