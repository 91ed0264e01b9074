"""The answers of requests sent with an `Idempotency-Key`, kept in the shared database (the
accounts store's `idempotent_answers`) so that every replica finds them: a key is claimed by
the first request that sends it, its answer written once that request ends, and found by every
later one for a day (`http.idempotency` decides what to do with it)."""

from __future__ import annotations

import time
from typing import Literal

import msgspec
from litestar.types import Message
from sqlalchemy import Connection, delete, or_, select, update

from translate_server.storage.account_tables import idempotent_answers
from translate_server.storage.database import Database

# How long an answer is kept: a replay a day later runs again.
KEPT_SECONDS = 24 * 3600.0

_ROWS = idempotent_answers.c
_headers = msgspec.json.Decoder(list[tuple[str, str]])
_encode = msgspec.json.Encoder().encode


class Answer(msgspec.Struct, frozen=True):
    status: int
    headers: list[tuple[str, str]]  # latin-1, as they were sent
    body: bytes


class Found(msgspec.Struct, frozen=True):
    """What a claim found: the key is now this request's ("claimed"), another request with it
    runs ("running") or has ended ("finished", its answer); `digest` is the request's the key
    was first sent with."""

    state: Literal["claimed", "running", "finished"]
    digest: str
    answer: Answer | None = None


class Captured:
    """An answer as an app sends it (ASGI messages), kept whole up to `limit` bytes."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.status: int | None = None
        self.headers: list[tuple[str, str]] = []
        self.body: list[bytes] = []
        self.size = 0
        self.ended = False

    def add(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = [
                (k.decode("latin-1"), v.decode("latin-1")) for k, v in message.get("headers", ())
            ]
        elif message["type"] == "http.response.body":
            chunk = message.get("body", b"")
            self.size += len(chunk)
            if self.size <= self.limit:
                self.body.append(chunk)
            self.ended = not message.get("more_body", False)

    def answer(self) -> Answer | None:
        if self.status is None or not self.ended or self.size > self.limit:
            return None
        return Answer(self.status, self.headers, b"".join(self.body))


class IdempotentAnswers:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def claim(self, owner: str, key: str, digest: str, lease: float) -> Found:
        """The key claimed for this request (`digest`) for `lease` seconds, unless a request
        has it: a kept answer, or a claim not yet run out. An answer older than a day, or a
        claim whose server died, is taken over."""
        table = self.database.insert(idempotent_answers)

        def claim(c: Connection) -> Found:
            now = time.time()
            mine = (_ROWS.owner == owner, _ROWS.idempotency_key == key)
            stale = or_(
                _ROWS.created < now - KEPT_SECONDS,
                (_ROWS.status.is_(None)) & (_ROWS.claimed_until < now),
            )
            c.execute(delete(idempotent_answers).where(*mine, stale))
            row = {
                "owner": owner,
                "idempotency_key": key,
                "request_digest": digest,
                "created": now,
                "claimed_until": now + lease,
            }
            # RETURNING, not rowcount: psycopg's async cursor leaves rowcount unset here.
            made = c.execute(table.values(row).on_conflict_do_nothing().returning(_ROWS.owner))
            if made.first() is not None:
                return Found("claimed", digest)
            found = c.execute(
                select(_ROWS.request_digest, _ROWS.status, _ROWS.headers, _ROWS.body).where(*mine)
            ).one()
            if found.status is None:
                return Found("running", found.request_digest)
            answer = Answer(found.status, _headers.decode(found.headers), bytes(found.body))
            return Found("finished", found.request_digest, answer)

        return await self.database.write(claim)

    async def finish(self, owner: str, key: str, answer: Answer) -> None:
        mine = (_ROWS.owner == owner, _ROWS.idempotency_key == key)
        kept = (
            update(idempotent_answers)
            .where(*mine)
            .values(
                status=answer.status, headers=_encode(answer.headers).decode(), body=answer.body
            )
        )
        await self.database.write(lambda c: c.execute(kept))

    async def release(self, owner: str, key: str) -> None:
        """The claim given up (the request failed before it did its work): the next request
        with the key runs."""
        mine = (_ROWS.owner == owner, _ROWS.idempotency_key == key, _ROWS.status.is_(None))
        await self.database.write(lambda c: c.execute(delete(idempotent_answers).where(*mine)))

    async def forget_old(self) -> None:
        """Answers older than a day deleted (a claim would ignore them anyway)."""
        old = delete(idempotent_answers).where(_ROWS.created < time.time() - KEPT_SECONDS)
        await self.database.write(lambda c: c.execute(old))
