"""The batches of /v1/batches, in the jobs' database beside the job each runs as: a batch is
made with its job (queued on the document queue, its `format` `BATCH_KIND`), in one
transaction that also counts the owner's batches in flight, so servers admitting at once never
exceed the limit together. While it runs, its counts (and `finalizing`) are read from its
job's recorded lines; once ended, its row holds everything OpenAI's object says, and outlives
the job's retention."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import msgspec
from sqlalchemy import Connection, func, select, update

from translate_server.batches.errors import BatchNotFoundError, TooManyBatchesError
from translate_server.batches.files import lock_owner
from translate_server.batches.protocol import (
    FINAL,
    Batch,
    BatchError,
    BatchErrors,
    BatchList,
    BatchRequestCounts,
    BatchStatus,
    BatchUsage,
)
from translate_server.documents.job_keys import new_key
from translate_server.storage.database import Database
from translate_server.storage.job_tables import (
    document_jobs,
    document_translations,
    openai_batches,
)
from translate_server.storage.row_ids import new_row_id

# The `format` of a batch's job on the document queue.
BATCH_KIND = "openai-batch"
WINDOW_SECONDS = 24 * 3600.0
_B = openai_batches.c
_LINES = document_translations.c
_ADMISSION_LOCK = 0x62617463
_LIVE: tuple[BatchStatus, ...] = ("validating", "in_progress", "cancelling")
_TIMES = (
    "created_at",
    "in_progress_at",
    "expires_at",
    "finalizing_at",
    "completed_at",
    "failed_at",
    "expired_at",
    "cancelling_at",
    "cancelled_at",
)
# A live batch's lines answered so far, and those of them that failed (its job's rows).
_DONE = (
    select(func.count())
    .where(_LINES.job_id == _B.job_id)
    .correlate(openai_batches)
    .scalar_subquery()
)
_LINE_ERRORS = (
    select(func.count())
    .where(_LINES.job_id == _B.job_id, _LINES.needs_review.is_(True))
    .correlate(openai_batches)
    .scalar_subquery()
)


class BatchRecord(msgspec.Struct, frozen=True, kw_only=True):
    """A batch's row, as its job's run reads it."""

    id: str
    job_id: str | None
    owner: str
    endpoint: str
    input_file_id: str
    status: BatchStatus
    total: int
    expires_at: float


class BatchStore:
    def __init__(self, database: Database, clock: Callable[[], float] = time.time) -> None:
        self.database = database
        self.clock = clock

    async def create(
        self,
        *,
        owner: str,
        endpoint: str,
        input_file_id: str,
        total: int,
        metadata: dict[str, str] | None,
        limit: int | None,
        errors: Sequence[BatchError] = (),
    ) -> Batch:
        """A new batch and its queued job; with `errors` (its file does not fit its endpoint),
        a batch failed at validation and no job. TooManyBatchesError where the owner has
        `limit` batches in flight already."""
        now = self.clock()
        batch_id = f"batch_{new_row_id().hex}"
        job_id = None if errors else new_row_id().hex.upper()
        row: dict[str, Any] = {
            "id": batch_id,
            "job_id": job_id,
            "owner": owner,
            "endpoint": endpoint,
            "input_file_id": input_file_id,
            "completion_window": "24h",
            "metadata": None if metadata is None else msgspec.json.encode(metadata).decode(),
            "status": "failed" if errors else "validating",
            "total": total,
            "created_at": now,
            "expires_at": now + WINDOW_SECONDS,
        }
        if errors:
            row |= {"failed_at": now, "errors": msgspec.json.encode(list(errors)).decode()}

        def create(c: Connection) -> Batch:
            if limit is not None and job_id is not None:
                lock_owner(c, _ADMISSION_LOCK, owner)
                live = select(func.count()).where(_B.owner == owner, _B.status.in_(_LIVE))
                if c.execute(live).scalar_one() >= limit:
                    raise TooManyBatchesError(
                        f"At most {limit} batches may be in progress at once; create this "
                        "one when one of them has ended.",
                        param="input_file_id",
                    )
            if job_id is not None:
                c.execute(document_jobs.insert().values(_job_row(job_id, owner, total, now)))
            c.execute(openai_batches.insert().values(row))
            return _get(c, owner, batch_id)

        return await self.database.write(create)

    async def get(self, owner: str, batch_id: str) -> Batch:
        return await self.database.read(lambda c: _get(c, owner, batch_id))

    async def list(self, owner: str, after: str | None, limit: int) -> BatchList:
        """A page of the owner's batches, newest first, from after the batch `after`."""
        query = _SELECT.where(_B.owner == owner)
        if after:
            query = query.where(_B.id < after)
        query = query.order_by(_B.id.desc()).limit(limit + 1)
        rows = await self.database.read(lambda c: list(c.execute(query)))
        data = [_batch(row) for row in rows[:limit]]
        return BatchList(
            data=data,
            first_id=data[0].id if data else None,
            last_id=data[-1].id if data else None,
            has_more=len(rows) > limit,
        )

    async def cancel(self, owner: str, batch_id: str) -> Batch:
        """Ask for the batch to stop: `cancelling` until the server running it (any) ends
        it; a batch already ended is answered as it stands."""
        now = self.clock()
        cancelling = (
            update(openai_batches)
            .where(
                _B.id == batch_id, _B.owner == owner, _B.status.in_(("validating", "in_progress"))
            )
            .values(status="cancelling", cancelling_at=now)
        )

        def cancel(c: Connection) -> Batch:
            c.execute(cancelling)
            return _get(c, owner, batch_id)

        return await self.database.write(cancel)

    async def of_job(self, job_id: str) -> BatchRecord | None:
        query = select(*(_B[name] for name in BatchRecord.__struct_fields__)).where(
            _B.job_id == job_id
        )
        row = await self.database.read(lambda c: c.execute(query).first())
        return None if row is None else BatchRecord(**row._asdict())

    async def record(self, batch_id: str) -> BatchRecord:
        query = select(*(_B[name] for name in BatchRecord.__struct_fields__)).where(
            _B.id == batch_id
        )
        row = await self.database.read(lambda c: c.execute(query).one())
        return BatchRecord(**row._asdict())

    async def fail(self, batch_id: str, errors: Sequence[BatchError]) -> None:
        """The batch failed as a whole, with why."""
        failed = (
            update(openai_batches)
            .where(_B.id == batch_id)
            .values(
                status="failed",
                failed_at=self.clock(),
                errors=msgspec.json.encode(list(errors)).decode(),
            )
        )
        await self.database.write(lambda c: c.execute(failed))

    async def started(self, batch_id: str) -> None:
        """Its first run began: `in_progress` (a later run of a resumed batch keeps the time)."""
        now = self.clock()
        start = (
            update(openai_batches)
            .where(_B.id == batch_id, _B.status == "validating")
            .values(status="in_progress", in_progress_at=now)
        )
        await self.database.write(lambda c: c.execute(start))


def ended(
    c: Connection,
    batch_id: str,
    status: BatchStatus,
    counts: BatchRequestCounts,
    usage: BatchUsage,
    files: tuple[str | None, str | None],
    now: float,
) -> None:
    """Record a batch's end in the transaction that finishes its job."""
    stamp = {"completed": "completed_at", "cancelled": "cancelled_at", "expired": "expired_at"}
    c.execute(
        update(openai_batches)
        .where(_B.id == batch_id)
        .values(
            status=status,
            completed=counts.completed,
            failed=counts.failed,
            output_file_id=files[0],
            error_file_id=files[1],
            usage=msgspec.json.encode(usage).decode(),
            finalizing_at=now,
            **{stamp[status]: now},
        )
    )


def _job_row(job_id: str, owner: str, total: int, now: float) -> dict[str, Any]:
    return {
        "id": job_id,
        "key_digest": new_key()[1],  # never read with a key: the batch's owner reads it
        # Not the owner's own: its documents in flight are counted by owner, its batches here.
        "owner": f"{BATCH_KIND}:{owner}",
        "status": "queued",
        "format": BATCH_KIND,
        "target_lang": "",
        "options": "{}",
        "billed_characters": 0,
        "segments_total": total,
        "created_at": now,
        "updated_at": now,
    }


_SELECT = select(openai_batches, _DONE.label("done"), _LINE_ERRORS.label("line_errors"))


def _get(c: Connection, owner: str, batch_id: str) -> Batch:
    row = c.execute(_SELECT.where(_B.id == batch_id, _B.owner == owner)).first()
    if row is None:
        raise BatchNotFoundError(f"No such Batch object: {batch_id}", param="batch_id")
    return _batch(row)


def _batch(row: Any) -> Batch:
    found = row._mapping
    status: BatchStatus = found["status"]
    if status in FINAL:
        completed, failed = found["completed"], found["failed"]
    else:
        failed = int(found["line_errors"] or 0)
        completed = int(found["done"] or 0) - failed
        if status == "in_progress" and completed + failed >= found["total"]:
            status = "finalizing"
    times = {name: None if found[name] is None else int(found[name]) for name in _TIMES}
    return Batch(
        id=found["id"],
        endpoint=found["endpoint"],
        input_file_id=found["input_file_id"],
        completion_window=found["completion_window"],
        status=status,
        output_file_id=found["output_file_id"],
        error_file_id=found["error_file_id"],
        errors=None
        if found["errors"] is None
        else BatchErrors(data=msgspec.json.decode(found["errors"], type=list[BatchError])),
        request_counts=BatchRequestCounts(total=found["total"], completed=completed, failed=failed),
        metadata=None if found["metadata"] is None else msgspec.json.decode(found["metadata"]),
        usage=None
        if found["usage"] is None
        else msgspec.json.decode(found["usage"], type=BatchUsage),
        **times,  # type: ignore[arg-type]
    )
