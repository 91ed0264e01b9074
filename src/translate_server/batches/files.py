"""The JSONL files of /v1/files, in the jobs' database (SQLite, or PostgreSQL shared by
replicas), so whichever replica serves a request, or runs a batch, reads them: the uploads
(`purpose=batch`) and what batches write (`batch_output`). Each is its owner's (`owners`):
another key's file is the same 404 as an unknown one."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, delete, func, select, text

from translate_server.batches.errors import FileNotFoundApiError, TooManyFilesError
from translate_server.batches.protocol import FileDeleted, FileList, FileObject
from translate_server.storage.database import Database
from translate_server.storage.job_tables import openai_files
from translate_server.storage.row_ids import new_row_id

_FILES = openai_files.c
_OBJECT = (_FILES.id, _FILES.bytes, _FILES.created_at, _FILES.filename, _FILES.purpose)
# pg_advisory_xact_lock's first key while an owner's files are counted and one added.
_ADMISSION_LOCK = 0x66696C65


def new_file_id() -> str:
    return f"file-{new_row_id().hex}"  # sorts in the order the files were made


def lock_owner(c: Connection, kind: int, owner: str) -> None:
    """Servers admitting one owner's files (or batches) take turns until their transactions
    end (SQLite's single writer already does)."""
    if c.dialect.name == "postgresql":
        c.execute(
            text("SELECT pg_advisory_xact_lock(:kind, hashtext(:owner))"),
            {"kind": kind, "owner": owner},
        )


def insert_file(
    c: Connection, owner: str, filename: str, purpose: str, data: bytes, lines: int, now: float
) -> str:
    file_id = new_file_id()
    c.execute(
        openai_files.insert().values(
            id=file_id,
            owner=owner,
            purpose=purpose,
            filename=filename,
            bytes=len(data),
            lines=lines,
            created_at=now,
            data=data,
        )
    )
    return file_id


class FileStore:
    def __init__(self, database: Database, clock: Callable[[], float] = time.time) -> None:
        self.database = database
        self.clock = clock

    async def create(
        self, owner: str, filename: str, data: bytes, lines: int, limit: int | None
    ) -> FileObject:
        """A new upload (`purpose=batch`); TooManyFilesError where the owner keeps `limit`
        uploads already, counted in the same transaction as the insert."""
        now = self.clock()

        def create(c: Connection) -> FileObject:
            if limit is not None:
                lock_owner(c, _ADMISSION_LOCK, owner)
                kept = select(func.count()).where(_FILES.owner == owner, _FILES.purpose == "batch")
                if c.execute(kept).scalar_one() >= limit:
                    raise TooManyFilesError(
                        f"At most {limit} batch files may be kept at once; delete one first.",
                        param="file",
                    )
            file_id = insert_file(c, owner, filename, "batch", data, lines, now)
            return _get(c, owner, file_id)

        return await self.database.write(create)

    async def get(self, owner: str, file_id: str) -> FileObject:
        return await self.database.read(lambda c: _get(c, owner, file_id))

    async def content(self, owner: str, file_id: str) -> bytes:
        query = select(_FILES.data).where(_FILES.id == file_id, _FILES.owner == owner)
        found = await self.database.read(lambda c: c.execute(query).scalar())
        if found is None:
            raise _not_found(file_id)
        return bytes(found)

    async def list(
        self, owner: str, after: str | None, limit: int, order: str, purpose: str | None
    ) -> FileList:
        """A page of the owner's files, newest first (`order=desc`, OpenAI's default) or
        oldest first, from after the file `after`."""
        newest_first = order != "asc"
        query: Any = select(*_OBJECT).where(_FILES.owner == owner)
        if purpose:
            query = query.where(_FILES.purpose == purpose)
        if after:
            query = query.where(_FILES.id < after if newest_first else _FILES.id > after)
        query = query.order_by(_FILES.id.desc() if newest_first else _FILES.id).limit(limit + 1)
        rows = await self.database.read(lambda c: list(c.execute(query)))
        data = [_object(row) for row in rows[:limit]]
        return FileList(
            data=data,
            first_id=data[0].id if data else None,
            last_id=data[-1].id if data else None,
            has_more=len(rows) > limit,
        )

    async def delete(self, owner: str, file_id: str) -> FileDeleted:
        gone = delete(openai_files).where(_FILES.id == file_id, _FILES.owner == owner)
        deleted = await self.database.write(lambda c: c.execute(gone).rowcount)
        if not deleted:
            raise _not_found(file_id)
        return FileDeleted(id=file_id)


def _get(c: Connection, owner: str, file_id: str) -> FileObject:
    row = c.execute(select(*_OBJECT).where(_FILES.id == file_id, _FILES.owner == owner)).first()
    if row is None:
        raise _not_found(file_id)
    return _object(row)


def _object(row: Any) -> FileObject:
    file_id, size, created_at, filename, purpose = row
    return FileObject(
        id=file_id, bytes=size, created_at=int(created_at), filename=filename, purpose=purpose
    )


def _not_found(file_id: str) -> FileNotFoundApiError:
    return FileNotFoundApiError(f"No such File object: {file_id}", param="file_id")
