"""Import and export jobs of translation memories, as DeepL's translation-memory API has them:
an import job is made first and waits for its file at an upload URL; an export job's TMX file
is fetched from a download URL. Both URLs carry a secret token of their own (DeepL's clients
send no API key to them), and expire.

Jobs live in the memories' database, beside the memories, so that every API process and every
replica sees the same job: the upload may reach another one than the one that made the job.
"""

from __future__ import annotations

import secrets
import time
import uuid
from typing import Literal

import msgspec
from sqlalchemy import ColumnElement, select, update

from translate_server.memory.store import MemoryStore
from translate_server.storage.memory_tables import memory_jobs

Operation = Literal["import", "export"]
# DeepL's job statuses; "processing" is never seen here: an upload is read as it arrives.
JobStatus = Literal["awaiting_input", "processing", "completed", "downloaded", "failed", "expired"]
# How long an upload or download URL stays valid.
URL_LIFETIME = 3600.0


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


_COLUMNS = [memory_jobs.c[name] for name in MemoryJob.__struct_fields__]


class MemoryJobs:
    def __init__(self, store: MemoryStore) -> None:
        self.database = store.database

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
        made = memory_jobs.insert().values(msgspec.structs.asdict(job))
        await self.database.write(lambda c: c.execute(made))
        return job

    async def get(self, owner: str, job_id: str) -> MemoryJob | None:
        return await self._one(memory_jobs.c.job_id == job_id, memory_jobs.c.owner == owner)

    async def by_token(self, token: str) -> MemoryJob | None:
        """The job whose upload or download URL carries `token` (it names its owner)."""
        return await self._one(memory_jobs.c.token == token)

    async def claim(self, job: MemoryJob) -> bool:
        """Marks an import job as taking its upload; False where another upload has (only one
        file per job, even when two arrive at once, on any replica)."""
        claimed = (
            update(memory_jobs)
            .where(memory_jobs.c.job_id == job.job_id, memory_jobs.c.status == "awaiting_input")
            .values(status="processing", updated=time.time())
        )
        return await self.database.write(lambda c: c.execute(claimed).rowcount == 1)

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
        finished = (
            update(memory_jobs)
            .where(memory_jobs.c.job_id == job.job_id)
            .values(
                status=status,
                memory=memory_jobs.c.memory if memory is None else memory,
                error=error,
                skipped=skipped,
                updated=now,
                expires=now + URL_LIFETIME,
            )
        )
        await self.database.write(lambda c: c.execute(finished))

    async def _one(self, *where: ColumnElement[bool]) -> MemoryJob | None:
        query = select(*_COLUMNS).where(*where)
        row = await self.database.read(lambda c: c.execute(query).first())
        return None if row is None else MemoryJob(*row).current(time.time())
