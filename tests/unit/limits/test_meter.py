"""The meter over the shared store, on both backends: two meters stand for two replicas over
one database. A quota never goes more than one request over; a rate limit lets through at most
its burst, its rate and each replica's chunk; a refusal counts nothing."""

from __future__ import annotations

import asyncio

import pytest

from translate_server.errors import QuotaExceededError, RateLimitedError
from translate_server.limits.meter import Meter
from translate_server.limits.policy import Limits
from translate_server.limits.store import DatabaseLimits, LimitStore, LocalLimits
from translate_server.storage.opening import StoreDatabases

pytestmark = pytest.mark.usefixtures("backend")


@pytest.fixture
async def store(databases: StoreDatabases) -> LimitStore:
    return DatabaseLimits(await databases.migrated("accounts"))


async def _spend(meter: Meter, limits: Limits, characters: int) -> bool:
    subjects = (meter.subject("account:team", limits),)
    try:
        await meter.admit(subjects)
    except RateLimitedError:
        return False
    try:
        await meter.charge(subjects, characters)
    except (QuotaExceededError, RateLimitedError):
        return False
    finally:
        meter.release(subjects)
    return True


async def test_a_monthly_quota_ends_at_most_one_request_over(store: LimitStore) -> None:
    replicas = [Meter(store), Meter(DatabaseLimits(store.database))]  # type: ignore[attr-defined]
    limits = Limits(characters_per_month=1000)
    sizes = [37, 61, 12, 88, 45] * 20
    granted = await asyncio.gather(
        *(_spend(replicas[i % 2], limits, size) for i, size in enumerate(sizes))
    )
    billed = sum(size for size, ok in zip(sizes, granted, strict=True) if ok)
    assert 1000 - 2 * 10 <= billed <= 1000 + max(sizes)  # two held chunks at most unspent
    for meter in replicas:
        await meter.close()  # what they held goes back
    assert await store.used("account:team", _month()) == billed


async def test_a_quota_refusal_says_not_to_retry(store: LimitStore) -> None:
    meter = Meter(store)
    assert await _spend(meter, Limits(characters_per_month=10), 10)
    subjects = (meter.subject("account:team", Limits(characters_per_month=10)),)
    with pytest.raises(QuotaExceededError) as refused:
        await meter.charge(subjects, 1)
    assert refused.value.headers["x-should-retry"] == "false"


async def test_a_rate_limit_holds_two_replicas_within_ten_percent(store: LimitStore) -> None:
    # A one-second window: 60 per second is the same bucket as 60 a minute, sixty times faster.
    replicas = [Meter(store, window=1.0), Meter(DatabaseLimits(store.database), window=1.0)]  # type: ignore[attr-defined]
    limits = Limits(requests_per_minute=60)
    loop = asyncio.get_running_loop()
    started, granted = loop.time(), 0
    while (elapsed := loop.time() - started) < 1.0:
        results = await asyncio.gather(*(_spend(m, limits, 0) for m in replicas * 5))
        granted += sum(results)
    # Whatever the timing, any span of the window's length lets through at most 66.
    assert granted <= 66 * max(1.0, elapsed)
    assert granted >= 30  # and it does let the rate through


async def test_a_refused_request_gives_back_what_an_earlier_subject_counted() -> None:
    meter = Meter(LocalLimits())
    key = meter.subject("key:k", Limits(requests_per_minute=600))
    account = meter.subject("account:a", Limits(requests_per_minute=1))
    await meter.admit((key, account))
    meter.release((key, account))
    held = key.held["requests"].tokens
    with pytest.raises(RateLimitedError) as refused:
        await meter.admit((key, account))
    assert key.held["requests"].tokens == held
    assert int(refused.value.headers["Retry-After"]) >= 1


async def test_concurrent_requests_are_limited() -> None:
    meter = Meter(LocalLimits())
    subjects = (meter.subject("key:k", Limits(concurrent_requests=1)),)
    await meter.admit(subjects)
    with pytest.raises(RateLimitedError):
        await meter.admit(subjects)
    meter.release(subjects)
    await meter.admit(subjects)


def _month() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m")
