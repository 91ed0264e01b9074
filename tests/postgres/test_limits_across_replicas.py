"""Limits held across two replicas (`tests.support.fake_server` processes, the engine double)
over one PostgreSQL database, behind the real HAProxy running deploy/haproxy/haproxy.cfg:

- a monthly quota of 10,000 characters under 200 concurrent requests ends at most one
  request's characters over;
- a rate of 60 requests a window lets at most 66 through in a window. The window is six
  seconds here (`--limit-window-seconds`): the same bucket as a minute's, ten times faster.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.cluster import Router, haproxy_binary
from tests.support.fake_server_process import FakeServerProcess
from tests.support.harness import eventually_sync
from tests.support.postgres import Cluster
from tests.support.prerequisites import missing_prerequisite, prerequisite_reason

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        haproxy_binary() is None,
        reason=prerequisite_reason("postgres", "haproxy is not installed"),
    ),
]

KEY = "team-key"
AUTH = {"Authorization": f"Bearer {KEY}"}
QUOTA = 10_000
TEXT = "x" * 100  # 200 requests of 100 characters: twice the quota
TARGETS = ("de", "fr", "es", "it")  # HAProxy routes by language pair: spread over both
# Long enough that 20 clients outrun its rate (10 a second) on a busy machine, short enough
# not to wait a minute.
WINDOW = 6.0


class FakeServer(FakeServerProcess):
    def __init__(self, database_url: str, log: Path, limits: dict[str, str]) -> None:
        env = {
            "TRANSLATE_API_KEY": KEY,
            "TRANSLATE_MAX_QUEUED_REQUESTS": "256",
            **{f"TRANSLATE_{name.upper()}": value for name, value in limits.items()},
        }
        super().__init__(database_url, log, env=env)


QUOTA_LIMITS = {"limit_characters_per_month": str(QUOTA)}
RATE_LIMITS = {"limit_requests_per_minute": "60", "limit_window_seconds": str(WINDOW)}


@pytest.fixture(scope="module")
def routers(
    postgres_cluster: Cluster | str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, str]]:
    """Two pairs of replicas, one with the quota and one with the rate limit, each pair over
    a database of its own behind its own HAProxy: all four started at once (starting is most
    of these tests' time)."""
    if isinstance(postgres_cluster, str):
        missing_prerequisite("postgres", postgres_cluster)
    folder = tmp_path_factory.mktemp("limits")
    pairs = {}
    for name, limits in (("quota", QUOTA_LIMITS), ("rate", RATE_LIMITS)):
        database = postgres_cluster.new_database()
        pairs[name] = [FakeServer(database, folder / f"{name}{i}.log", limits) for i in (1, 2)]
    fronts: list[Router] = []
    try:
        for server in (server for pair in pairs.values() for server in pair):
            eventually_sync(server.healthy, timeout=120, every=0.2)
        urls = {}
        for name, pair in pairs.items():
            fronts.append(Router(pair, folder))  # type: ignore[arg-type]
            urls[name] = fronts[-1].base_url
            eventually_sync(lambda url=urls[name]: _up(url), timeout=30, every=0.2)
        yield urls
    finally:
        for front in fronts:
            front.stop()
        for server in (server for pair in pairs.values() for server in pair):
            server.stop()


def _up(url: str) -> bool:
    try:
        return httpx.get(f"{url}/health", timeout=2).status_code == 200
    except httpx.TransportError:
        return False


async def _translate(client: httpx.AsyncClient, url: str, i: int) -> int:
    # Each its own text of TEXT's length: identical requests in flight would share one run,
    # and one bill.
    text = f"{i:04d}" + TEXT[4:]
    body = {"text": text, "source_lang": "en", "target_lang": TARGETS[i % len(TARGETS)]}
    response = await client.post(f"{url}/translate", json=body, headers=AUTH)
    return response.status_code


async def test_a_monthly_quota_ends_at_most_one_request_over(routers: dict[str, str]) -> None:
    router = routers["quota"]
    async with httpx.AsyncClient(timeout=120) as client:
        statuses = await asyncio.gather(*(_translate(client, router, i) for i in range(200)))
    assert set(statuses) <= {200, 429}
    billed = statuses.count(200) * len(TEXT)
    print(f"billed {billed} of a {QUOTA} quota: {statuses.count(429)} refused")
    assert billed <= QUOTA + len(TEXT)  # at most one request over
    assert billed >= QUOTA - 2 * len(TEXT)  # and the replicas' unspent chunks are small


async def test_sixty_a_window_lets_at_most_sixty_six_through(routers: dict[str, str]) -> None:
    router = routers["rate"]
    loop = asyncio.get_running_loop()
    granted, seen = 0, dict[int, int]()
    async with httpx.AsyncClient(timeout=30) as client:
        started = loop.time()

        async def worker() -> None:
            nonlocal granted
            while loop.time() - started < WINDOW:
                # A request that costs the servers next to nothing: the limit, not the
                # engine double, decides how many get through.
                status = (await client.get(f"{router}/v1/models", headers=AUTH)).status_code
                seen[status] = seen.get(status, 0) + 1
                granted += status == 200

        await asyncio.gather(*(worker() for _ in range(20)))
        elapsed = loop.time() - started  # the last answer included: every admission within
    print(f"granted {granted} in {elapsed:.2f} s of a {WINDOW} s window: {seen}")
    assert granted <= 66 * max(1.0, elapsed / WINDOW)
    assert seen.get(429)  # the limit was reached
    assert granted >= 30, (granted, elapsed, seen)  # and the rate does get through
