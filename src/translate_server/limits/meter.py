"""One replica's side of the limits: what it spends of each key's and account's buckets and
quotas, taken from the shared store (`limits.store`) in chunks and counted here in between,
so that a request costs a database round trip only at a chunk's end.

The bounds this keeps, across any number of replicas R sharing the store:
- a monthly quota: no chunk is taken past the limit, and only the last request, taken alone,
  may go over it: at most one request's characters over;
- a rate of L per window: the bucket lets through its burst (5% of L) and then L per window;
  each replica may hold one chunk (2.5% of L) taken but not yet spent, so any window sees at
  most L + 5% + R x 2.5%: 10% over with two replicas. The burst is small on purpose, as
  OpenAI's own limits are paced ("60 a minute" is about one a second), so a minute can never
  see two minutes' worth.
- concurrent requests: counted by this replica alone (a limit per replica).

A refusal the replica can decide from what it knows (the bucket's last known state only moves
later) costs no round trip either.
"""

from __future__ import annotations

import asyncio
import math
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime

from translate_server.errors import QuotaExceededError, RateLimitedError
from translate_server.limits.policy import Limits
from translate_server.limits.store import Bucket, LimitStore

BURST_SHARE = 0.05  # of a rate limit, its bucket's capacity
CHUNK_SHARE = 0.025  # of a rate limit, what a replica takes at once beyond its need
QUOTA_CHUNK_SHARE = 0.01  # of a monthly quota, what a replica reserves at once beyond its need
REQUESTS = "requests"
CHARACTERS = "characters"


@dataclass(slots=True)
class _Held:
    tokens: float = 0.0  # taken from the store, not yet spent
    tat: float = 0.0  # the bucket's last known state (it only moves later)


@dataclass(slots=True)
class _Quota:
    month: str
    held: int = 0  # reserved in the store, not yet spent
    spent_out_until: float = 0.0  # the store refused: don't ask again before


@dataclass(frozen=True, slots=True)
class Standing:
    """A rate limit's state as its headers tell it."""

    limit: int
    remaining: int
    reset: float  # seconds until it is full again


@dataclass(slots=True)
class Subject:
    """A key or an account as the limits see it."""

    name: str  # `key:<id>` or `account:<name>`
    limits: Limits
    running: int = 0
    held: dict[str, _Held] = field(default_factory=dict)
    quota: _Quota | None = None
    # One trip to the store at a time per subject: the requests waiting meanwhile spend what
    # it brings back, rather than each taking a chunk of its own (held chunks add up to the
    # bounds above).
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Meter:
    def __init__(self, store: LimitStore, *, window: float = 60.0) -> None:
        self.store = store
        self.window = window
        self._subjects: dict[str, Subject] = {}

    def subject(self, name: str, limits: Limits) -> Subject:
        """`name`'s state here, with its limits as they are now."""
        found = self._subjects.get(name)
        if found is None:
            found = self._subjects[name] = Subject(name, limits)
        elif found.limits is not limits:
            found.limits = limits
        return found

    # -- requests ---------------------------------------------------------------------------
    async def admit(self, subjects: tuple[Subject, ...]) -> None:
        """Count a request against each subject, or refuse it (RateLimitedError) with nothing
        counted; the caller releases it after (`release`)."""
        for subject in subjects:
            limit = subject.limits.concurrent_requests
            if limit is not None and subject.running >= limit:
                raise _rate_limited(
                    f"At most {limit} requests at once; one must finish first.", 1.0
                )
        await self._spend(subjects, REQUESTS, 1)
        for subject in subjects:
            subject.running += 1

    def release(self, subjects: tuple[Subject, ...]) -> None:
        for subject in subjects:
            subject.running -= 1

    # -- characters -------------------------------------------------------------------------
    async def charge(self, subjects: tuple[Subject, ...], characters: int) -> None:
        """Bill `characters` to each subject's rate and quota, or refuse them all."""
        if characters <= 0:
            return
        await self._spend(subjects, CHARACTERS, characters)
        reserved: list[Subject] = []
        try:
            for subject in subjects:
                if subject.limits.characters_per_month is not None:
                    async with subject.lock:
                        await self._reserve(subject, characters)
                    reserved.append(subject)
        except QuotaExceededError:
            for subject in reserved:  # the request is refused: nothing of it is spent
                assert subject.quota is not None
                subject.quota.held += characters
            raise

    async def used_this_month(self, subject: Subject) -> int:
        """Characters of the quota spent this month, as far as this replica knows: reserved
        by every replica, less what this one holds unspent."""
        month = _month()
        held = subject.quota.held if subject.quota and subject.quota.month == month else 0
        return await self.store.used(subject.name, month) - held

    def standing(self, subject: Subject, measure: str) -> Standing | None:
        limit = _rate(subject.limits, measure)
        if limit is None:
            return None
        bucket = self._bucket(limit)
        held = subject.held.get(measure) or _Held()
        owed = max(0.0, held.tat - time.time()) - held.tokens * bucket.interval
        remaining = limit - math.ceil(max(0.0, owed) / bucket.interval)
        return Standing(limit, max(0, remaining), max(0.0, owed))

    async def close(self) -> None:
        """Give back every quota reserved and not spent, for the other replicas."""
        for subject in self._subjects.values():
            quota = subject.quota
            if quota is not None and quota.held > 0:
                await self.store.give_back(subject.name, quota.month, quota.held)
                quota.held = 0

    # -- inside -----------------------------------------------------------------------------
    def _bucket(self, limit: int) -> Bucket:
        return Bucket(self.window / limit, max(1.0, limit * BURST_SHARE))

    async def _spend(self, subjects: tuple[Subject, ...], measure: str, n: int) -> None:
        spent: list[_Held] = []
        try:
            for subject in subjects:
                limit = _rate(subject.limits, measure)
                if limit is not None:
                    held = subject.held.setdefault(measure, _Held())
                    if held.tokens >= n:
                        held.tokens -= n
                    else:
                        async with subject.lock:
                            await self._take(subject.name, held, measure, n, limit)
                    spent.append(held)
        except RateLimitedError:
            for held in spent:  # refused by a later subject: the earlier get theirs back
                held.tokens += n
            raise

    async def _take(self, name: str, held: _Held, measure: str, n: int, limit: int) -> None:
        bucket = self._bucket(limit)
        if held.tokens >= n:  # brought back while this request waited
            held.tokens -= n
            return
        need = n - held.tokens
        now = time.time()
        if bucket.admits(held.tat, now, need):
            extra = math.floor(limit * CHUNK_SHARE)
            for take in (need + extra, need) if extra else (need,):
                taken = await self.store.take(name, measure, take, bucket)
                held.tat = max(held.tat, taken.tat)
                if taken.granted:
                    held.tokens += take - n
                    return
        wait = bucket.wait(held.tat, time.time(), need)
        what = "requests" if measure == REQUESTS else "characters"
        period = "1 minute" if self.window == 60 else f"{self.window:g} seconds"
        message = f"Rate limit reached: {limit} {what} per {period}."
        raise _rate_limited(message, wait)

    async def _reserve(self, subject: Subject, characters: int) -> None:
        limit = subject.limits.characters_per_month
        assert limit is not None
        month = _month()
        quota = subject.quota
        if quota is None or quota.month != month:
            if quota is not None and quota.held > 0:  # last month's: no use to anyone now
                await self.store.give_back(subject.name, quota.month, quota.held)
            quota = subject.quota = _Quota(month)
        if quota.held >= characters:
            quota.held -= characters
            return
        now = time.monotonic()
        if quota.spent_out_until <= now:
            need = characters - quota.held
            want = need + max(1, math.floor(limit * QUOTA_CHUNK_SHARE))
            got = await self.store.reserve(subject.name, month, want, need, limit)
            if got is not None:
                quota.held += got - characters
                return
            quota.spent_out_until = now + 1.0  # raised limits are seen within a second
        raise QuotaExceededError(
            f"You exceeded your monthly quota of {limit} characters; it renews at the start "
            "of next month (UTC).",
            headers={"x-should-retry": "false", "Retry-After": str(_seconds_to_next_month())},
        )


def _rate(limits: Limits, measure: str) -> int | None:
    return limits.requests_per_minute if measure == REQUESTS else limits.characters_per_minute


def _rate_limited(message: str, wait: float) -> RateLimitedError:
    # Whole seconds in `Retry-After` (HTTP's), the exact wait in `retry-after-ms` (which the
    # OpenAI SDKs prefer).
    seconds = max(1, math.ceil(wait))
    milliseconds = max(1, math.ceil(wait * 1000))
    return RateLimitedError(
        f"{message} Retry after {seconds} seconds.",
        headers={"Retry-After": str(seconds), "retry-after-ms": str(milliseconds)},
    )


def _month(now: datetime | None = None) -> str:
    return (now or datetime.now(UTC)).strftime("%Y-%m")


def _seconds_to_next_month() -> int:
    now = datetime.now(UTC)
    first = datetime(now.year + now.month // 12, now.month % 12 + 1, 1, tzinfo=UTC)
    return max(1, math.ceil((first - now).total_seconds()))
