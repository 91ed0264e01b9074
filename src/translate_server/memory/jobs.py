"""Import and export jobs of translation memories, as DeepL's translation-memory API has them:
an import job is made first and waits for its file at an upload URL; an export job's TMX file
is fetched from a download URL. Both URLs carry a secret token of their own (DeepL's clients
send no API key to them), and expire.

Jobs live in the memories' SQLite file, beside the memories, so that every API process of the
server sees the same job: the upload may reach another process than the one that made the job.
"""

from __future__ import annotations

import secrets
import sqlite3
import time
import uuid
from typing import Literal

import msgspec

from translate_server.memory.store import MemoryStore

Operation = Literal["import", "export"]
# DeepL's job statuses; "processing" is never seen here: an upload is read as it arrives.
JobStatus = Literal["awaiting_input", "processing", "completed", "downloaded", "failed", "expired"]
# How long an upload or download URL stays valid.
URL_LIFETIME = 3600.0

SCHEMA = """
CREATE TABLE IF NOT EXISTS memory_jobs (
    job_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    operation TEXT NOT NULL,
    status TEXT NOT NULL,
    token TEXT NOT NULL UNIQUE,
    memory TEXT,
    display_name TEXT,
    file_name TEXT,
    content_type TEXT,
    content_length INTEGER,
    error TEXT,
    skipped INTEGER,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    expires REAL NOT NULL
);
"""
_COLUMNS = (
    "job_id, owner, operation, status, token, memory, display_name, file_name, content_type, "
    "content_length, error, skipped, created, updated, expires"
)


class MemoryJob(msgspec.Struct, frozen=True):
    job_id: str
    owner: str
    operation: Operation
    status: JobStatus
    token: str
    memory: str | None  # the memory an import made, or an export reads
    display_name: str | None
    file_name: str | None
    content_type: str | None
    content_length: int | None
    error: str | None
    skipped: int | None
    created: float
    updated: float
    expires: float

    def current(self, now: float) -> MemoryJob:
        """The job as it stands at `now`: an upload URL past its time has expired."""
        if self.status == "awaiting_input" and now > self.expires:
            return msgspec.structs.replace(self, status="expired")
        return self


class MemoryJobs:
    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    async def open(self) -> None:
        await self.store.write(lambda c: c.executescript(SCHEMA))

    async def create(
        self,
        owner: str,
        operation: Operation,
        *,
        status: JobStatus,
        memory: str | None = None,
        display_name: str | None = None,
        file_name: str | None = None,
        content_type: str | None = None,
        content_length: int | None = None,
    ) -> MemoryJob:
        now = time.time()
        job = MemoryJob(
            job_id=str(uuid.uuid4()),
            owner=owner,
            operation=operation,
            status=status,
            token=secrets.token_urlsafe(24),
            memory=memory,
            display_name=display_name,
            file_name=file_name,
            content_type=content_type,
            content_length=content_length,
            error=None,
            skipped=None,
            created=now,
            updated=now,
            expires=now + URL_LIFETIME,
        )
        row = msgspec.structs.astuple(job)
        marks = ", ".join("?" * len(row))
        await self.store.write(
            lambda c: c.execute(f"INSERT INTO memory_jobs ({_COLUMNS}) VALUES ({marks})", row)
        )
        return job

    async def get(self, owner: str, job_id: str) -> MemoryJob | None:
        return await self._one("job_id = ? AND owner = ?", job_id, owner)

    async def by_token(self, token: str) -> MemoryJob | None:
        """The job whose upload or download URL carries `token` (it names its owner)."""
        return await self._one("token = ?", token)

    async def claim(self, job: MemoryJob) -> bool:
        """Marks an import job as taking its upload; False where another upload has (only one
        file per job, even when two arrive at once)."""

        def claim(c: sqlite3.Connection) -> bool:
            changed = c.execute(
                "UPDATE memory_jobs SET status = 'processing', updated = ? "
                "WHERE job_id = ? AND status = 'awaiting_input'",
                (time.time(), job.job_id),
            )
            return changed.rowcount == 1

        return await self.store.write(claim)

    async def finish(
        self,
        job: MemoryJob,
        status: JobStatus,
        *,
        memory: str | None = None,
        error: str | None = None,
        skipped: int | None = None,
    ) -> None:
        now = time.time()
        await self.store.write(
            lambda c: c.execute(
                "UPDATE memory_jobs SET status = ?, memory = coalesce(?, memory), error = ?, "
                "skipped = ?, updated = ?, expires = ? WHERE job_id = ?",
                (status, memory, error, skipped, now, now + URL_LIFETIME, job.job_id),
            )
        )

    async def _one(self, where: str, *args: str) -> MemoryJob | None:
        query = f"SELECT {_COLUMNS} FROM memory_jobs WHERE {where}"
        row = await self.store.read(lambda c: c.execute(query, args).fetchone())
        return None if row is None else MemoryJob(*row).current(time.time())
