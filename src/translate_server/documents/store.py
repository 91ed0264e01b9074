"""Document jobs kept across restarts, in the jobs' database (SQLite, or PostgreSQL shared by
replicas: `storage`): their records, their translated pieces while they run, and their files
(the upload, the result), so whichever replica serves a request can read them.

Which server runs a job is its claim (`claims`): a server claims a queued job with a lease,
renews it while the job runs, and every write of the job's progress checks the claim is still
its own. A job's key is kept only as a digest (`job_keys`). Finished jobs (done or failed) are
deleted, with their files, once older than the retention time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import msgspec
from sqlalchemy import Connection, delete, func, select, text, update

from translate_server.documents import claims, segment_rows
from translate_server.documents.job import UNFINISHED, Job, ReviewItem, SegmentTranslation
from translate_server.documents.job_keys import authorized, new_key, not_found
from translate_server.owners import SHARED
from translate_server.storage.database import Database
from translate_server.storage.job_tables import document_files, document_jobs, document_translations
from translate_server.storage.row_ids import new_row_id

_JOBS = document_jobs.c
_SELECT = select(*(_JOBS[name] for name in Job.__struct_fields__))
_FINISHED = ("done", "error")
# pg_advisory_xact_lock's first key while an owner's jobs in flight are counted and one added
# (migrations lock with the same two-key form and first key 0x7472616E).
_ADMISSION_LOCK = 0x646F6373


class InFlightLimitError(Exception):
    """The owner has as many unfinished jobs as it may have at once."""


class ReviewChangedError(Exception):
    """Another edit of the job's segments came between a review's read and its write."""


class JobStore:
    def __init__(
        self,
        database: Database,
        retention_seconds: float,
        clock: Callable[[], float] = time.time,
        server: str | None = None,
    ) -> None:
        self.database = database
        self.retention_seconds = retention_seconds
        self.clock = clock
        self.server = server or claims.server_name()  # whose claims this store writes

    async def close(self) -> None:
        """Nothing of its own to close: the database's engines are the storage's."""

    # -- Creating and reading ---------------------------------------------------------------
    async def create(
        self,
        *,
        data: bytes,
        format: str,
        target_lang: str,
        source_lang: str | None = None,
        filename: str | None = None,
        owner: str | None = None,
        options: Mapping[str, Any] | None = None,
        billed_characters: int = 0,
        billed_to: str | None = None,
        segments_total: int = 0,
        in_flight_limit: int | None = None,
    ) -> tuple[Job, str]:
        """A new queued job with its source file; returns it and its secret key. `owner`
        None: nobody's (`owners.SHARED`). With `in_flight_limit`, raises InFlightLimitError
        where the owner has that many unfinished jobs already, counted in the same
        transaction as the insert, so servers admitting at once never exceed it together."""
        owner = SHARED if owner is None else owner
        job_id = new_row_id().hex.upper()  # oldest first among jobs made in one tick
        key, digest = new_key()
        now = self.clock()
        row = {
            "id": job_id,
            "key_digest": digest,
            "owner": owner,
            "status": "queued",
            "format": format,
            "filename": filename,
            "source_lang": source_lang,
            "target_lang": target_lang,
            "options": msgspec.json.encode(options or {}).decode(),
            "billed_characters": billed_characters,
            "billed_to": billed_to,
            "segments_total": segments_total,
            "created_at": now,
            "updated_at": now,
        }

        def create(c: Connection) -> Job:
            if in_flight_limit is not None:
                _lock_admission(c, owner)
                if _in_flight(c, owner) >= in_flight_limit:
                    raise InFlightLimitError(owner)
            c.execute(document_jobs.insert().values(row))
            c.execute(document_files.insert().values(job_id=job_id, kind="source", data=data))
            return _get(c, job_id)

        return await self.database.write(create), key

    async def get(self, job_id: str) -> Job | None:
        return await self.database.read(lambda c: _find(c, job_id))

    async def authorize(self, job_id: str, key: str, owner: str | None = None) -> Job:
        """The job, when `key` is its key (and `owner` its owner, where it has one, unless the
        caller passes KEY_ALONE: a link whose secret key alone authorizes); any mismatch is the
        same 404 as an unknown id."""
        query = _SELECT.add_columns(_JOBS.key_digest).where(_JOBS.id == job_id)
        row = await self.database.read(lambda c: c.execute(query).first())
        found = None if row is None else (_job(row[:-1]), bytes(row[-1]))
        return authorized(found, key, SHARED if owner is None else owner)

    async def unfinished(self) -> list[Job]:
        """Jobs to resume after a restart, oldest first."""
        query = _SELECT.where(_JOBS.status.in_(UNFINISHED)).order_by(_JOBS.created_at, _JOBS.id)
        return await self.database.read(lambda c: [_job(row) for row in c.execute(query)])

    async def in_flight(self, owner: str | None) -> int:
        """Unfinished jobs of one owner (None or SHARED: of clients without a key)."""
        owner = SHARED if owner is None else owner
        return await self.database.read(lambda c: _in_flight(c, owner))

    async def count_by_status(self) -> dict[str, int]:
        query = select(_JOBS.status, func.count()).group_by(_JOBS.status)
        return await self.database.read(
            lambda c: {status: int(count) for status, count in c.execute(query)}
        )

    async def read_source(self, job: Job) -> bytes:
        found = await self._file(job.id, "source")
        if found is None:
            raise FileNotFoundError(f"the source file of document job {job.id} is missing")
        return found

    async def read_result(self, job: Job) -> bytes:
        found = await self._file(job.id, "result")
        if found is None:
            raise not_found()
        return found

    async def _file(self, job_id: str, kind: str) -> bytes | None:
        files = document_files.c
        query = select(files.data).where(files.job_id == job_id, files.kind == kind)
        found = await self.database.read(lambda c: c.execute(query).scalar())
        return None if found is None else bytes(found)

    # -- Progress ---------------------------------------------------------------------------
    async def claim_next(
        self, lease_seconds: float, formats: Collection[str] | None = None
    ) -> Job | None:
        """Claim the oldest job no server runs, of `formats` (None: any), for `lease_seconds`;
        None when there is none."""
        now = self.clock()

        def claim(c: Connection) -> Job | None:
            job_id = claims.claim_next(c, self.server, now, lease_seconds, formats)
            return None if job_id is None else _get(c, job_id)

        return await self.database.write(claim)

    async def renew(self, job_ids: Collection[str], lease_seconds: float) -> set[str]:
        """Extend the leases of this server's running jobs; the ids still its own."""
        now = self.clock()
        return await self.database.write(
            lambda c: claims.renew(c, self.server, job_ids, now, lease_seconds)
        )

    async def release(self, job_ids: Collection[str]) -> None:
        """Let this server's unfinished jobs go, for any server to take at once."""
        await self.database.write(lambda c: claims.release(c, self.server, job_ids))

    async def save_translations(
        self, job_id: str, translations: Mapping[int, SegmentTranslation]
    ) -> Job:
        """Record a batch of translated segments and the job's progress, in one transaction;
        JobTakenOverError where the job is no longer this server's."""
        now = self.clock()
        t = document_translations.c
        insert = self.database.insert(document_translations)
        saved = [segment_rows.segment_row(job_id, i, found) for i, found in translations.items()]
        done = select(func.count()).where(t.job_id == job_id).scalar_subquery()
        progress = (
            update(document_jobs)
            .where(_JOBS.id == job_id)
            .values(segments_done=done, updated_at=now)
        )

        def save(c: Connection) -> Job:
            claims.hold(c, self.server, job_id, now)
            if saved:
                c.execute(
                    insert.on_conflict_do_update(
                        index_elements=["job_id", "idx"],
                        set_={name: insert.excluded[name] for name in segment_rows.SEGMENT_COLUMNS},
                    ),
                    saved,
                )
            return _changed(c, job_id, progress)

        return await self.database.write(save)

    async def translations(self, job_id: str) -> dict[int, SegmentTranslation]:
        return await self.database.read(lambda c: segment_rows.translations(c, job_id))

    async def review(
        self,
        job_id: str,
        read: Mapping[int, SegmentTranslation],
        reviewed: Mapping[int, SegmentTranslation],
        result: bytes,
        report: Sequence[ReviewItem],
        needs_review: int,
    ) -> Job:
        """A finished job's segments as a person reviewed them (`reviewed`, all of them) and
        the result rebuilt from them, in one transaction; ReviewChangedError where its segments
        are no longer what the review `read` (another edit came between)."""
        now = self.clock()
        t = document_translations.c
        counted = (
            update(document_jobs)
            .where(_JOBS.id == job_id)
            .values(updated_at=now, needs_review=needs_review, review=_encode_review(report))
        )
        result_file = document_files.c

        def review(c: Connection) -> Job:
            _get(c, job_id)  # a 404 where the job was deleted meanwhile
            if segment_rows.translations(c, job_id) != dict(read):
                raise ReviewChangedError(job_id)
            c.execute(delete(document_translations).where(t.job_id == job_id))
            c.execute(
                document_translations.insert(),
                [segment_rows.segment_row(job_id, i, found) for i, found in reviewed.items()],
            )
            c.execute(
                update(document_files)
                .where(result_file.job_id == job_id, result_file.kind == "result")
                .values(data=result)
            )
            return _changed(c, job_id, counted)

        return await self.database.write(review)

    async def finish(
        self, job_id: str, result: bytes, review: Sequence[ReviewItem] = (), needs_review: int = 0
    ) -> Job:
        """The job done: its result kept, its translations kept for a person's review, and the
        report of the segments to review (the first `REVIEW_ITEMS` of the `needs_review` there
        are)."""
        now = self.clock()
        done = (
            update(document_jobs)
            .where(_JOBS.id == job_id)
            .values(
                status="done",
                segments_done=_JOBS.segments_total,
                finished_at=now,
                updated_at=now,
                lease_until=None,
                needs_review=needs_review,
                review=_encode_review(review),
            )
        )

        def finish(c: Connection) -> Job:
            claims.hold(c, self.server, job_id, now)
            # The translations stay, with the job, for its review (`review`).
            c.execute(document_files.insert().values(job_id=job_id, kind="result", data=result))
            return _changed(c, job_id, done)

        return await self.database.write(finish)

    async def finish_with(self, job_id: str, write: Callable[[Connection], None]) -> Job:
        """A job of another kind (`DocumentJobs.add_kind`) done: `write` records its own
        outcome in the same transaction, while the claim is still this server's."""
        now = self.clock()
        done = (
            update(document_jobs)
            .where(_JOBS.id == job_id)
            .values(
                status="done",
                segments_done=_JOBS.segments_total,
                finished_at=now,
                updated_at=now,
                lease_until=None,
            )
        )

        def finish(c: Connection) -> Job:
            claims.hold(c, self.server, job_id, now)
            write(c)
            _forget_translations(c, job_id)
            return _changed(c, job_id, done)

        return await self.database.write(finish)

    async def fail(self, job_id: str, message: str) -> Job:
        now = self.clock()
        failed = (
            update(document_jobs)
            .where(_JOBS.id == job_id)
            .values(
                status="error", error=message, finished_at=now, updated_at=now, lease_until=None
            )
        )

        def fail(c: Connection) -> Job:
            claims.hold(c, self.server, job_id, now)
            _forget_translations(c, job_id)
            return _changed(c, job_id, failed)

        return await self.database.write(fail)

    async def delete(self, job_id: str) -> None:
        """Forget a job and its files now (a client that fetched its result, say)."""
        await self.database.write(lambda c: _delete(c, [job_id]))

    # -- Retention --------------------------------------------------------------------------
    async def expire(self) -> list[str]:
        """Delete finished jobs older than the retention time; their ids."""
        cutoff = self.clock() - self.retention_seconds
        query = select(_JOBS.id).where(_JOBS.status.in_(_FINISHED), _JOBS.finished_at <= cutoff)

        def expire(c: Connection) -> list[str]:
            ids = list(c.execute(query).scalars())
            _delete(c, ids)
            return ids

        return await self.database.write(expire)


def _encode_review(review: Sequence[ReviewItem]) -> str:
    return msgspec.json.encode(list(review)).decode()


def _in_flight(c: Connection, owner: str) -> int:
    query = select(func.count()).where(_JOBS.status.in_(UNFINISHED), _JOBS.owner == owner)
    return int(c.execute(query).scalar_one())


def _lock_admission(c: Connection, owner: str) -> None:
    """Servers admitting the same owner's jobs take turns, until their transactions end
    (SQLite's single writer already does: its transactions begin IMMEDIATE)."""
    if c.dialect.name == "postgresql":
        c.execute(
            text("SELECT pg_advisory_xact_lock(:kind, hashtext(:owner))"),
            {"kind": _ADMISSION_LOCK, "owner": owner},
        )


def _find(c: Connection, job_id: str) -> Job | None:
    row = c.execute(_SELECT.where(_JOBS.id == job_id)).first()
    return None if row is None else _job(row)


def _get(c: Connection, job_id: str) -> Job:
    """A job the transaction has just written, or the 404 where another deleted it."""
    found = _find(c, job_id)
    if found is None:
        raise not_found()
    return found


def _changed(c: Connection, job_id: str, change: Any) -> Job:
    c.execute(change)
    return _get(c, job_id)


def _forget_translations(c: Connection, job_id: str) -> None:
    c.execute(delete(document_translations).where(document_translations.c.job_id == job_id))


def _delete(c: Connection, ids: list[str]) -> None:
    # The translations and files go with their job (the foreign keys cascade); said outright
    # all the same, so nothing depends on SQLite's foreign keys being on.
    for table in (document_translations, document_files):
        c.execute(delete(table).where(table.c.job_id.in_(ids)))
    c.execute(delete(document_jobs).where(_JOBS.id.in_(ids)))


def _job(row: Sequence[Any]) -> Job:
    values = dict(zip(Job.__struct_fields__, row, strict=True))
    values["options"] = msgspec.json.decode(values["options"])
    if values["review"] is not None:
        values["review"] = msgspec.json.decode(values["review"], type=list[ReviewItem])
    return Job(**values)
