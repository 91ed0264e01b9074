"""The limits' state shared by the replicas, in the accounts' database: each statement atomic,
so that replicas taking from the same bucket or quota at once never both get the last of it.

A replica takes in chunks (`limits.meter`) and spends them locally; only a chunk's end costs
a round trip. Two stores alike: `DatabaseLimits` on SQLite or PostgreSQL, `LocalLimits` in
memory for a process that opens no store.

Rate limits are GCRA buckets: a bucket is the time at which it is next empty (`tat`); taking
`n` tokens pushes it `n * interval` later, allowed while it stays within `capacity` tokens of
now. A take bigger than the capacity is allowed from a full bucket, so a request longer than
the burst is never refused forever (it overdraws, and the next wait is longer).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol

from sqlalchemy import and_, case, select, update
from sqlalchemy.engine import Connection

from translate_server.storage.account_tables import limit_buckets, limit_quotas
from translate_server.storage.database import Database


@dataclass(frozen=True, slots=True)
class Bucket:
    """A rate limit as a bucket: `interval` seconds per token, `capacity` tokens of burst."""

    interval: float
    capacity: float

    def admits(self, tat: float, now: float, n: float) -> bool:
        return max(tat, now) - now + min(n, self.capacity) * self.interval <= (
            self.capacity * self.interval
        )

    def wait(self, tat: float, now: float, n: float) -> float:
        """Seconds until `n` tokens could be taken."""
        return max(
            0.0, max(tat, now) - now + (min(n, self.capacity) - self.capacity) * self.interval
        )


@dataclass(frozen=True, slots=True)
class Taken:
    """A take's answer: whether it was granted, the bucket's new (or unchanged) `tat`."""

    granted: bool
    tat: float


class LimitStore(Protocol):
    async def take(self, subject: str, measure: str, n: float, bucket: Bucket) -> Taken: ...

    async def reserve(
        self, subject: str, month: str, want: int, need: int, limit: int
    ) -> int | None:
        """`want` characters of the quota where that keeps it within `limit`, else `need`
        where the quota is not yet spent (the one request allowed over), else None; the
        characters reserved."""
        ...

    async def give_back(self, subject: str, month: str, characters: int) -> None: ...

    async def used(self, subject: str, month: str) -> int: ...


class DatabaseLimits:
    def __init__(self, database: Database) -> None:
        self.database = database
        self._known: set[tuple[str, str]] = set()  # rows made by this process already

    async def take(self, subject: str, measure: str, n: float, bucket: Bucket) -> Taken:
        now = time.time()
        key = (subject, measure)
        b = limit_buckets.c
        start = case((b.tat > now, b.tat), else_=now)
        statement = (
            update(limit_buckets)
            .where(
                and_(b.subject == subject, b.measure == measure),
                start - now + min(n, bucket.capacity) * bucket.interval
                <= bucket.capacity * bucket.interval,
            )
            .values(tat=start + n * bucket.interval)
            .returning(b.tat)
        )
        made = key in self._known

        def run(c: Connection) -> Taken:
            if not made:
                insert = self.database.insert(limit_buckets).values(
                    subject=subject, measure=measure, tat=0.0
                )
                c.execute(insert.on_conflict_do_nothing())
            tat = c.execute(statement).scalar()
            if tat is not None:
                return Taken(True, float(tat))
            found = c.execute(select(b.tat).where(b.subject == subject, b.measure == measure))
            return Taken(False, float(found.scalar() or 0.0))

        taken = await self.database.write(run)
        self._known.add(key)
        return taken

    async def reserve(
        self, subject: str, month: str, want: int, need: int, limit: int
    ) -> int | None:
        q = limit_quotas.c
        where = and_(q.subject == subject, q.month == month)

        def run(c: Connection) -> int | None:
            insert = self.database.insert(limit_quotas).values(subject=subject, month=month, used=0)
            c.execute(insert.on_conflict_do_nothing())
            chunk = (
                update(limit_quotas)
                .where(where, q.used + want <= limit)
                .values(used=q.used + want)
                .returning(q.used)
            )
            if c.execute(chunk).scalar() is not None:
                return want
            last = (
                update(limit_quotas)
                .where(where, q.used < limit)
                .values(used=q.used + need)
                .returning(q.used)
            )
            return need if c.execute(last).scalar() is not None else None

        return await self.database.write(run)

    async def give_back(self, subject: str, month: str, characters: int) -> None:
        q = limit_quotas.c
        statement = (
            update(limit_quotas)
            .where(q.subject == subject, q.month == month)
            .values(used=q.used - characters)
        )
        await self.database.write(lambda c: c.execute(statement))

    async def used(self, subject: str, month: str) -> int:
        q = limit_quotas.c
        query = select(q.used).where(q.subject == subject, q.month == month)
        found = await self.database.read(lambda c: c.execute(query).scalar())
        return int(found or 0)


class LocalLimits:
    """The same, in this process's memory: for a front end that opens no store."""

    def __init__(self) -> None:
        self._tats: dict[tuple[str, str], float] = {}
        self._used: dict[tuple[str, str], int] = {}

    async def take(self, subject: str, measure: str, n: float, bucket: Bucket) -> Taken:
        now = time.time()
        tat = self._tats.get((subject, measure), 0.0)
        if not bucket.admits(tat, now, n):
            return Taken(False, tat)
        tat = max(tat, now) + n * bucket.interval
        self._tats[(subject, measure)] = tat
        return Taken(True, tat)

    async def reserve(
        self, subject: str, month: str, want: int, need: int, limit: int
    ) -> int | None:
        used = self._used.get((subject, month), 0)
        got = want if used + want <= limit else need if used < limit else None
        if got is not None:
            self._used[(subject, month)] = used + got
        return got

    async def give_back(self, subject: str, month: str, characters: int) -> None:
        key = (subject, month)
        self._used[key] = self._used.get(key, 0) - characters

    async def used(self, subject: str, month: str) -> int:
        return self._used.get((subject, month), 0)
