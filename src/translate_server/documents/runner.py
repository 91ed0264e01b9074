"""Document jobs run in the background: a file's segments go to the translator in small
batches, progress is recorded after each, and jobs left unfinished by a stop resume on start.

The translator is injected: an async callable `translate(texts, source_lang, target_lang,
options) -> translations`, which the app provides at the engine's low priority so that
interactive requests go first. Bounds keep a document from flooding admission: at most
`max_jobs` documents run at once, each with at most `batches_in_flight` batches of at most
`batch_segments` segments (and `batch_chars` characters) outstanding. A batch refused because
the server is overloaded is retried after a pause instead of failing the job.

Stopping (`close`) cancels the running jobs where they stand; their finished batches are
already recorded, so the next start resumes each one where it stopped.

A job submitted with `billed_to` (DeepL's `/v2/document`: the digest of the uploading key) adds
its characters to that usage through the injected `bill(billed_to, characters)`, once, when
it is done: not when it fails or is cancelled, whatever its status polls.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import msgspec
import structlog

from translate_server.documents.formats import (
    Extracted,
    FormatOptions,
    detect_format,
    extract,
    format_named,
)
from translate_server.documents.metrics import JobGauge
from translate_server.documents.store import Job, JobStore
from translate_server.errors import (
    ApiError,
    DocumentNotReadyError,
    OverloadedError,
    PayloadTooLargeError,
    TooManyDocumentsError,
)
from translate_server.translation.languages import requested_language

log = structlog.get_logger("translate_server.documents")


class DocumentOptions(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What a client asked for besides the languages; stored with the job."""

    formality: str | None = None
    glossary: dict[str, str] | None = None  # terms to translate as given
    retranslate: bool = False


# translate(texts, source_lang, target_lang, options) -> one translation per text
Translate = Callable[[list[str], str | None, str, DocumentOptions], Awaitable[list[str]]]
# bill(billed_to, characters): add a done job's characters to that usage
Bill = Callable[[str, int], Awaitable[None]]


@dataclass(frozen=True)
class RunnerLimits:
    # What one client may submit: characters to translate per document, and documents not
    # yet finished per owner (None: no limit).
    max_characters: int | None = None
    max_in_flight_per_owner: int | None = None
    # How the work is spread.
    max_jobs: int = 2
    batches_in_flight: int = 2
    batch_segments: int = 16
    batch_chars: int = 4000
    retry_delay: float = 1.0  # first pause after an overloaded answer; doubles up to 30 s
    max_retries: int = 8
    expire_every: float = 300.0


class DocumentJobs:
    def __init__(self, store: JobStore, translate: Translate,
                 limits: RunnerLimits = RunnerLimits(), gauge: JobGauge | None = None,
                 bill: Bill | None = None) -> None:
        self.store = store
        self.translate = translate
        self.limits = limits
        self.gauge = gauge
        self.bill = bill
        self._slots = asyncio.Semaphore(limits.max_jobs)
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._changes: dict[str, asyncio.Event] = {}
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
    async def submit(self, data: bytes, *, filename: str | None, target_lang: str,
                     source_lang: str | None = None, owner: str | None = None,
                     options: DocumentOptions | None = None,
                     billed_to: str | None = None) -> tuple[Job, str]:
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
            extract, fmt, data, _format_options(target_lang, options))
        characters = sum(len(s) for s in extracted.segments)
        limit = self.limits.max_characters
        if limit is not None and characters > limit:
            raise PayloadTooLargeError(
                f"The document has {characters} characters to translate; at most {limit} are "
                "accepted.", param="file", code="document_too_long")
        async with self._admitting:
            await self._check_in_flight(owner)
            job, key = await self.store.create(
                data=data, format=fmt.name, filename=filename, source_lang=source_lang,
                target_lang=target_lang, owner=owner, options=msgspec.to_builtins(options),
                billed_characters=characters, billed_to=billed_to,
                segments_total=len(extracted.segments))
        self._schedule(job.id)
        await self._count()
        return job, key

    async def _check_in_flight(self, owner: str | None) -> None:
        limit = self.limits.max_in_flight_per_owner
        if limit is not None and await self.store.in_flight(owner) >= limit:
            raise TooManyDocumentsError(
                f"At most {limit} documents may be in translation at once; submit this one "
                "when one of them is done.", param="file")

    async def status(self, job_id: str, key: str, owner: str | None = None) -> Job:
        return await self.store.authorize(job_id, key, owner)

    async def result(self, job_id: str, key: str, owner: str | None = None) -> tuple[Job, bytes]:
        job = await self.store.authorize(job_id, key, owner)
        if job.status != "done":
            raise DocumentNotReadyError(f"The document is not translated yet ({job.status}).",
                                        param="document_id")
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
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            job = await self.store.get(job_id) or job
        await self.store.delete(job_id)
        log.info("document_job_cancelled", job=job_id, status=job.status)
        await self._notify(job_id)
        await self._count()
        return job

    async def watch(self, job_id: str, key: str, owner: str | None = None
                    ) -> AsyncIterator[Job]:
        """The job now and after every change, until it is finished (for a progress stream);
        a job cancelled meanwhile ends as an error that says so."""
        changed = self._change(job_id)  # taken before reading: no change can slip between
        job = await self.store.authorize(job_id, key, owner)
        while True:
            yield job
            if job.finished:
                return
            await changed.wait()
            changed = self._change(job_id)
            current = await self.store.get(job_id)
            job = current or msgspec.structs.replace(job, status="error",
                                                     error="The job was cancelled.")

    # -- Running ----------------------------------------------------------------------------
    def _schedule(self, job_id: str) -> None:
        task = asyncio.create_task(self._run(job_id), name=f"document-{job_id}")
        self._tasks[job_id] = task
        task.add_done_callback(lambda _: self._tasks.pop(job_id, None))

    async def _run(self, job_id: str) -> None:
        async with self._slots:
            job = await self.store.start(job_id)
            await self._notify(job_id)
            await self._count()
            timings = _Timings(start=time.perf_counter())
            try:
                job = await self._translate_job(job, timings)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the job fails; the server goes on
                exc = _cause(exc)
                message = exc.message if isinstance(exc, ApiError) else "Translation failed."
                job = await self.store.fail(job_id, message)
                log.warning("document_job", **_summary(job, timings), exc_info=exc
                            if not isinstance(exc, ApiError) else None)
            else:
                log.info("document_job", **_summary(job, timings))
                await self._bill(job)
            finally:
                await self._notify(job_id)
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
            log.exception("document_usage_not_billed", document_id=job.id,
                          billed_characters=job.billed_characters)

    async def _translate_job(self, job: Job, timings: _Timings) -> Job:
        options = msgspec.convert(job.options, DocumentOptions)
        data = await self.store.read_source(job)
        extracted: Extracted = await asyncio.to_thread(
            extract, format_named(job.format), data, _format_options(job.target_lang, options))
        timings.mark("extract")
        done = await self.store.translations(job.id)
        pending = [i for i in range(len(extracted.segments)) if i not in done]
        batches = iter(_batches(pending, extracted.segments, self.limits))

        async def worker() -> None:
            for indexes in batches:  # one shared iterator: each batch is taken once
                texts = [extracted.segments[i] for i in indexes]
                translations = dict(zip(indexes, await self._translate_batch(texts, job, options),
                                        strict=True))
                done.update(translations)
                await self.store.save_translations(job.id, translations)
                await self._notify(job.id)

        async with asyncio.TaskGroup() as group:
            for _ in range(self.limits.batches_in_flight):
                group.create_task(worker())
        timings.mark("translate")
        result = await asyncio.to_thread(
            extracted.rebuild, [done[i] for i in range(len(extracted.segments))])
        timings.mark("rebuild")
        return await self.store.finish(job.id, result)

    async def _translate_batch(self, texts: list[str], job: Job,
                               options: DocumentOptions) -> list[str]:
        delay = self.limits.retry_delay
        for attempt in range(self.limits.max_retries + 1):
            try:
                translations = await self.translate(texts, job.source_lang, job.target_lang,
                                                    options)
            except OverloadedError:
                if attempt == self.limits.max_retries:
                    raise
                await asyncio.sleep(delay)
                delay = min(delay * 2, 30.0)
                continue
            if len(translations) != len(texts):
                raise RuntimeError(f"{len(translations)} translations for {len(texts)} texts")
            return translations
        raise AssertionError("unreachable")

    def _change(self, job_id: str) -> asyncio.Event:
        """The event the job's next change sets."""
        return self._changes.setdefault(job_id, asyncio.Event())

    async def _notify(self, job_id: str) -> None:
        changed = self._changes.pop(job_id, None)
        if changed is not None:
            changed.set()


def _cause(exc: Exception) -> Exception:
    """The first failure inside a task group's exception group."""
    while isinstance(exc, ExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _format_options(target_lang: str, options: DocumentOptions) -> FormatOptions:
    return FormatOptions(target_lang=target_lang, retranslate=options.retranslate)


def _batches(indexes: Sequence[int], segments: Sequence[str],
             limits: RunnerLimits) -> list[list[int]]:
    """Consecutive segments, at most `batch_segments` and (unless one alone is longer)
    `batch_chars` characters per batch."""
    batches: list[list[int]] = []
    current: list[int] = []
    chars = 0
    for index in indexes:
        size = len(segments[index])
        if current and (len(current) >= limits.batch_segments
                        or chars + size > limits.batch_chars):
            batches.append(current)
            current, chars = [], 0
        current.append(index)
        chars += size
    if current:
        batches.append(current)
    return batches


@dataclass
class _Timings:
    """Seconds spent in each phase of a job, for its log line."""

    start: float
    phases: dict[str, float] = field(default_factory=dict)

    def mark(self, phase: str) -> None:
        now = time.perf_counter()
        self.phases[phase] = round(now - self.start - sum(self.phases.values()), 4)


def _summary(job: Job, timings: _Timings) -> dict[str, object]:
    return {
        "document_id": job.id, "status": job.status, "format": job.format,
        "target_lang": job.target_lang, "segments": job.segments_total,
        "billed_characters": job.billed_characters, "error": job.error,
        "total_s": round(time.perf_counter() - timings.start, 4),
        **{f"{phase}_s": seconds for phase, seconds in timings.phases.items()},
    }
