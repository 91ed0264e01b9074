"""A batch's run, as a job of the document queue (`documents.job_kinds`): its lines not yet
answered run through `execute`, `concurrency` at once, and their answers are recorded in small
groups as they come back, each group in one transaction that holds the job's claim. A batch
whose server dies is taken over by another once its lease runs out and goes on from its
recorded lines: no line answered and recorded is run again, and a line is billed (its record
observed: the metrics and the log line, as any request's) only once its answer is recorded.

Between groups the run reads whether the batch was cancelled (through any server) and
whether its 24 hours are over; either ends it. In-flight lines finish first. Its end, in one
transaction: the output file (the answers with status 200), the error file (the others, and
the lines never run with `batch_cancelled` or `batch_expired`), the batch's counts, usage and
status, and its job done.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import msgspec
import structlog
from sqlalchemy import Connection

from translate_server.batches.execute import LineServices, Ran, run_line
from translate_server.batches.files import FileStore, insert_file
from translate_server.batches.lines import RESULT, BatchLine, LineResult, not_run, parsed
from translate_server.batches.protocol import (
    BatchError,
    BatchRequestCounts,
    BatchStatus,
    BatchUsage,
)
from translate_server.batches.store import BatchRecord, BatchStore, ended
from translate_server.documents.claims import JobTakenOverError
from translate_server.documents.job import Job, SegmentTranslation
from translate_server.documents.job_kinds import JobRun
from translate_server.documents.job_log import cause
from translate_server.documents.persist import persistently
from translate_server.errors import ApiError
from translate_server.observability.record import RequestRecord

log = structlog.get_logger("translate_server.batches")

# observe(record, batch_id, custom_id): a recorded line billed, as the request it was
Observe = Callable[[RequestRecord, str, str], None]
_NOT_RUN = {
    "cancelled": ("batch_cancelled", "The batch was cancelled before this request ran."),
    "expired": ("batch_expired", "The batch's completion window ended before this request ran."),
}


@dataclass(frozen=True, slots=True)
class BatchWork:
    batches: BatchStore
    files: FileStore
    services: LineServices
    observe: Observe
    # Lines in the engine at once, this server's batches together (a share of its slots, as
    # the document jobs'), and the workers each batch runs (as many: one batch may fill them).
    slots: asyncio.Semaphore
    concurrency: int
    max_lines: int
    save_lines: int = 16  # lines recorded together, or
    save_every: float = 1.0  # seconds between records at least

    async def __call__(self, job: Job, run: JobRun) -> Job:
        pause = run.limits.database_retry
        batch = await persistently(
            lambda: self.batches.of_job(job.id), step="read", first_pause=pause
        )
        if batch is None:  # its batch row is gone: nothing to answer to
            raise RuntimeError(f"job {job.id} has no batch")
        try:
            return await self._run(job, run, batch)
        except Exception as exc:
            # Stopped by its server, or another server's now: not the batch's failure.
            if not run.stopped(job.id) and not isinstance(cause(exc), JobTakenOverError):
                await self._failed(batch, cause(exc))
            raise

    async def _run(self, job: Job, run: JobRun, batch: BatchRecord) -> Job:
        pause = run.limits.database_retry
        await persistently(lambda: self.batches.started(batch.id), step="start", first_pause=pause)
        data = await persistently(
            lambda: self.files.content(batch.owner, batch.input_file_id),
            step="read",
            first_pause=pause,
        )
        lines = parsed(data, self.max_lines)
        kept = await persistently(
            lambda: run.store.translations(job.id), step="read", first_pause=pause
        )
        done = {i: (RESULT.decode(found.text), found.needs_review) for i, found in kept.items()}
        pending = [i for i in range(len(lines)) if i not in done]
        running = _Running(job.id, batch, run, lines, iter(pending), done)
        ending = _ending(batch)
        if ending is None and pending:
            async with asyncio.TaskGroup() as group:
                for _ in range(min(self.concurrency, len(pending))):
                    group.create_task(self._worker(running))
            await self._save(running)
            ending = running.ending
        log.info("batch_ended", batch_id=batch.id, lines=len(lines), status=ending or "completed")
        return await persistently(
            lambda: self._finish(job, run, batch, lines, done, ending),
            step="finish",
            first_pause=pause,
        )

    async def _worker(self, running: _Running) -> None:
        for index in running.pending:  # one shared iterator: each line is taken once
            if running.ending is None and time.time() >= running.batch.expires_at:
                running.ending = "expired"
            if running.ending is not None:
                return
            async with self.slots:
                ran = await run_line(self.services, running.lines[index], running.batch.owner)
            running.unsaved[index] = ran
            due = time.monotonic() - running.saved_at >= self.save_every
            if len(running.unsaved) >= self.save_lines or due:
                await self._save(running)

    async def _save(self, running: _Running) -> None:
        """Record the lines answered since the last record; bill them; look whether the batch
        is to end."""
        async with running.saving:
            taken, running.unsaved = running.unsaved, {}
            running.saved_at = time.monotonic()
            if taken:
                kept = {
                    i: SegmentTranslation(_text(ran.result), None, ran.failed)
                    for i, ran in taken.items()
                }
                await persistently(
                    lambda: running.run.store.save_translations(running.job_id, kept),
                    step="save",
                    first_pause=running.run.limits.database_retry,
                )
                for i, ran in taken.items():
                    running.done[i] = (ran.result, ran.failed)
                    self.observe(ran.record, running.batch.id, running.lines[i].custom_id)
                await running.run.notify(running.job_id)
            if running.ending is None:
                running.batch = await self.batches.record(running.batch.id)
                running.ending = _ending(running.batch)

    async def _finish(
        self,
        job: Job,
        run: JobRun,
        batch: BatchRecord,
        lines: list[BatchLine],
        done: dict[int, tuple[LineResult, bool]],
        ending: BatchStatus | None,
    ) -> Job:
        status: BatchStatus = ending or "completed"
        output: list[bytes] = []
        errors: list[bytes] = []
        usage = BatchUsage()
        for i, line in enumerate(lines):
            found = done.get(i)
            if found is None:
                errors.append(not_run(line.custom_id, *_NOT_RUN[status]))
                continue
            result, failed = found
            (errors if failed else output).append(bytes(result.line))
            usage.input_tokens += result.prompt_tokens
            usage.output_tokens += result.completion_tokens
            usage.input_tokens_details.cached_tokens += result.cached_tokens
        usage.total_tokens = usage.input_tokens + usage.output_tokens
        failed_count = sum(1 for _, failed in done.values() if failed)
        counts = BatchRequestCounts(
            total=len(lines), completed=len(done) - failed_count, failed=failed_count
        )
        now = time.time()

        def write(c: Connection) -> None:
            files = tuple(
                insert_file(
                    c,
                    batch.owner,
                    f"{batch.id}_{kind}.jsonl",
                    "batch_output",
                    _jsonl(found),
                    len(found),
                    now,
                )
                if found
                else None
                for kind, found in (("output", output), ("error", errors))
            )
            ended(c, batch.id, status, counts, usage, (files[0], files[1]), now)

        return await run.store.finish_with(job.id, write)

    async def _failed(self, batch: BatchRecord, exc: Exception) -> None:
        """The batch failed as a whole (its input file deleted meanwhile, say)."""
        message = exc.message if isinstance(exc, ApiError) else "The batch failed."
        code = exc.code if isinstance(exc, ApiError) and exc.code else "batch_failed"
        log.warning("batch_failed", batch_id=batch.id, exc_info=exc)
        await self.batches.fail(batch.id, [BatchError(code=code, message=message)])


def _ending(batch: BatchRecord) -> BatchStatus | None:
    """Why the batch is to end now: cancelled, or its window over; None: it goes on."""
    if time.time() >= batch.expires_at:
        return "expired"
    return "cancelled" if batch.status == "cancelling" else None


@dataclass(slots=True)
class _Running:
    job_id: str
    batch: BatchRecord
    run: JobRun
    lines: list[BatchLine]
    pending: Iterator[int]
    done: dict[int, tuple[LineResult, bool]]
    unsaved: dict[int, Ran] = field(default_factory=dict)
    saving: asyncio.Lock = field(default_factory=asyncio.Lock)
    saved_at: float = field(default_factory=time.monotonic)
    ending: BatchStatus | None = None


def _text(result: LineResult) -> str:
    return msgspec.json.encode(result).decode()


def _jsonl(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)
