"""Document jobs kept across restarts: their records in an embedded SQLite database,
`<directory>/jobs.sqlite3` (WAL; its schema in `job_database`), and their files in a folder
per job beside it (`job_files`).

One connection, used only from one worker thread: every call goes through that thread, so
the event loop never blocks on the disk and SQLite never sees two threads. A job's key is
kept only as a digest (`job_keys`). Finished jobs (done or failed) are deleted, rows and
files, once older than the retention time.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import msgspec

from translate_server.documents.job import UNFINISHED, Job, ReviewItem, SegmentTranslation
from translate_server.documents.job_database import open_database
from translate_server.documents.job_files import JobFiles
from translate_server.documents.job_keys import authorized, new_key, not_found

_COLUMNS = list(Job.__struct_fields__)
_SELECT = f"SELECT {', '.join(_COLUMNS)} FROM jobs"


class JobStore:
    """Open with `JobStore.open(directory, retention_seconds)`; close with `close()`."""

    def __init__(
        self, directory: Path, retention_seconds: float, clock: Callable[[], float] = time.time
    ) -> None:
        self.directory = directory
        self.retention_seconds = retention_seconds
        self.clock = clock
        self._files = JobFiles(directory)
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="job-store")
        self._db: sqlite3.Connection | None = None

    @classmethod
    async def open(
        cls, directory: str | Path, retention_seconds: float, clock: Callable[[], float] = time.time
    ) -> JobStore:
        store = cls(Path(directory), retention_seconds, clock)
        try:
            await store._call(store._open)
        except BaseException:
            await store.close()  # its worker thread, which has started
            raise
        return store

    async def close(self) -> None:
        if self._db is not None:
            await self._call(self._db.close)
            self._db = None
        self._thread.shutdown(wait=True)

    async def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._thread, fn, *args)

    def _open(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self._db = open_database(self.directory / "jobs.sqlite3")

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            raise RuntimeError("The job store is closed.")
        return self._db

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
    ) -> tuple[Job, str]:
        """A new queued job with its source file written; returns it and its secret key."""
        job_id = uuid.uuid4().hex.upper()
        key, digest = new_key()
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
        }
        return await self._call(self._create, row, data), key

    def _create(self, row: dict[str, Any], data: bytes) -> Job:
        self._files.write_source(row["id"], data)
        now = self.clock()
        row |= {"created_at": now, "updated_at": now}
        names = ", ".join(row)
        self.db.execute(
            f"INSERT INTO jobs ({names}) VALUES ({', '.join('?' * len(row))})", tuple(row.values())
        )
        return self._get(row["id"])

    async def get(self, job_id: str) -> Job | None:
        return await self._call(self._get, job_id)

    def _get(self, job_id: str) -> Job | None:
        row = self.db.execute(f"{_SELECT} WHERE id = ?", (job_id,)).fetchone()
        return None if row is None else _job(row)

    async def authorize(self, job_id: str, key: str, owner: str | None = None) -> Job:
        """The job, when `key` is its key (and `owner` its owner, where it has one, unless the
        caller passes KEY_ALONE: a link whose secret key alone authorizes); any mismatch is the
        same 404 as an unknown id."""
        return authorized(await self._call(self._with_digest, job_id), key, owner)

    def _with_digest(self, job_id: str) -> tuple[Job, bytes] | None:
        row = self.db.execute(
            f"SELECT key_digest, {', '.join(_COLUMNS)} FROM jobs WHERE id = ?", (job_id,)
        ).fetchone()
        return None if row is None else (_job(row[1:]), row[0])

    async def unfinished(self) -> list[Job]:
        """Jobs to resume after a restart, oldest first."""
        return await self._call(self._unfinished)

    def _unfinished(self) -> list[Job]:
        rows = self.db.execute(
            f"{_SELECT} WHERE status IN (?, ?) ORDER BY created_at", UNFINISHED
        ).fetchall()
        return [_job(row) for row in rows]

    async def in_flight(self, owner: str | None) -> int:
        """Unfinished jobs of one owner (None: of clients without a key)."""
        return await self._call(self._in_flight, owner)

    def _in_flight(self, owner: str | None) -> int:
        return self.db.execute(
            "SELECT COUNT(*) FROM jobs WHERE status IN (?, ?) AND owner IS ?", (*UNFINISHED, owner)
        ).fetchone()[0]

    async def count_by_status(self) -> dict[str, int]:
        return await self._call(self._count_by_status)

    def _count_by_status(self) -> dict[str, int]:
        rows = self.db.execute("SELECT status, COUNT(*) FROM jobs GROUP BY status").fetchall()
        return dict(rows)

    async def read_source(self, job: Job) -> bytes:
        return await self._call(self._files.read_source, job.id)

    async def read_result(self, job: Job) -> bytes:
        if job.result_path is None:
            raise not_found()
        return await self._call(Path(job.result_path).read_bytes)

    # -- Progress ---------------------------------------------------------------------------
    async def start(self, job_id: str) -> Job:
        return await self._call(self._start, job_id)

    def _start(self, job_id: str) -> Job:
        now = self.clock()
        self.db.execute(
            "UPDATE jobs SET status = 'translating', updated_at = ?, "
            "started_at = ?, segments_at_start = segments_done WHERE id = ?",
            (now, now, job_id),
        )
        return self._get(job_id)

    async def save_translations(
        self, job_id: str, translations: Mapping[int, SegmentTranslation]
    ) -> Job:
        """Record a batch of translated segments and the job's progress, in one transaction."""
        return await self._call(self._save_translations, job_id, dict(translations))

    def _save_translations(self, job_id: str, translations: dict[int, SegmentTranslation]) -> Job:
        with self._transaction():
            self.db.executemany(
                "INSERT OR REPLACE INTO translations (job_id, idx, text, estimate, needs_review) "
                "VALUES (?, ?, ?, ?, ?)",
                [
                    (job_id, index, found.text, found.estimate, found.needs_review)
                    for index, found in translations.items()
                ],
            )
            self.db.execute(
                "UPDATE jobs SET segments_done = (SELECT COUNT(*) FROM translations "
                "WHERE job_id = ?), updated_at = ? WHERE id = ?",
                (job_id, self.clock(), job_id),
            )
        return self._get(job_id)

    async def translations(self, job_id: str) -> dict[int, SegmentTranslation]:
        return await self._call(self._translations, job_id)

    def _translations(self, job_id: str) -> dict[int, SegmentTranslation]:
        rows = self.db.execute(
            "SELECT idx, text, estimate, needs_review FROM translations WHERE job_id = ?",
            (job_id,),
        ).fetchall()
        return {
            index: SegmentTranslation(text, estimate, bool(needs))
            for index, text, estimate, needs in rows
        }

    async def finish(
        self, job_id: str, result: bytes, review: Sequence[ReviewItem] = (), needs_review: int = 0
    ) -> Job:
        """The job done: its result written, and the report of the segments to review (the
        first `REVIEW_ITEMS` of the `needs_review` there are)."""
        return await self._call(self._finish, job_id, result, list(review), needs_review)

    def _finish(
        self, job_id: str, result: bytes, review: list[ReviewItem], needs_review: int
    ) -> Job:
        path = self._files.write_result(job_id, result)
        now = self.clock()
        with self._transaction():
            self.db.execute("DELETE FROM translations WHERE job_id = ?", (job_id,))
            self.db.execute(
                "UPDATE jobs SET status = 'done', segments_done = segments_total, "
                "result_path = ?, finished_at = ?, updated_at = ?, needs_review = ?, "
                "review = ? WHERE id = ?",
                (
                    str(path),
                    now,
                    now,
                    needs_review,
                    msgspec.json.encode(review).decode(),
                    job_id,
                ),
            )
        return self._get(job_id)

    async def fail(self, job_id: str, message: str) -> Job:
        return await self._call(self._fail, job_id, message)

    def _fail(self, job_id: str, message: str) -> Job:
        now = self.clock()
        with self._transaction():
            self.db.execute("DELETE FROM translations WHERE job_id = ?", (job_id,))
            self.db.execute(
                "UPDATE jobs SET status = 'error', error = ?, finished_at = ?, "
                "updated_at = ? WHERE id = ?",
                (message, now, now, job_id),
            )
        return self._get(job_id)

    async def delete(self, job_id: str) -> None:
        """Forget a job and its files now (a client that fetched its result, say)."""
        await self._call(self._delete, job_id)

    def _delete(self, job_id: str) -> None:
        with self._transaction():
            self.db.execute("DELETE FROM jobs WHERE id = ?", (job_id,))
        self._files.remove(job_id)

    # -- Retention --------------------------------------------------------------------------
    async def expire(self) -> list[str]:
        """Delete finished jobs older than the retention time; their ids."""
        return await self._call(self._expire)

    def _expire(self) -> list[str]:
        cutoff = self.clock() - self.retention_seconds
        ids = [
            row[0]
            for row in self.db.execute(
                "SELECT id FROM jobs WHERE status IN ('done', 'error') AND finished_at <= ?",
                (cutoff,),
            )
        ]
        for job_id in ids:
            self._delete(job_id)
        return ids

    def _transaction(self) -> sqlite3.Connection:
        # In autocommit mode the connection's context manager does not begin a transaction.
        self.db.execute("BEGIN")
        return self.db


def _job(row: Sequence[Any]) -> Job:
    values = dict(zip(_COLUMNS, row, strict=True))
    values["options"] = msgspec.json.decode(values["options"])
    if values["review"] is not None:
        values["review"] = msgspec.json.decode(values["review"], type=list[ReviewItem])
    return Job(**values)
