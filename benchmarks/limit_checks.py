"""`python -m benchmarks limit-checks`: what the key's caller, the limit checks and the usage
count add to one request, on SQLite and PostgreSQL, with limits on and off.

The gate (`http.gate.ApiGate`, as the app builds it) wraps an ASGI app that bills a request's
characters as a service does (`limits.ticket.charge`) and answers at once, so the figures are
the gate's and the limits' alone. Arms, each timed per request (p50, p99), in alternating
rounds:

- ``keys``: the API key check alone (no limiter): the floor;
- ``unlimited``: plus the caller and its ticket, a caller without limits (usage counted);
- ``limited-sqlite`` / ``limited-postgresql``: a caller with every limit (requests and
  characters per minute, a monthly quota, requests at once) over that backend's store.

The limits are high enough that nothing is refused: the hot path is a local count, and a
chunk's round trip to the database comes once per chunk (2.5% of a rate, 1% of a quota). What
one such round trip costs is reported apart (``take`` and ``reserve``, p50 and p99).
PostgreSQL is `--database-url`, else a throwaway cluster (tests/support/postgres.py).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import AsyncExitStack, ExitStack
from pathlib import Path
from typing import Any

from translate_server.accounts.directory import KeyDirectory
from translate_server.http.gate import ApiGate
from translate_server.limits.limiter import Limiter
from translate_server.limits.policy import NO_LIMITS, Limits
from translate_server.limits.store import Bucket, DatabaseLimits
from translate_server.limits.ticket import charge
from translate_server.storage.engines import Storage
from translate_server.storage.locations import database_url, sqlite_url
from translate_server.storage.migrate import upgrade

KEY = "bench-key"
LIMITS = Limits(
    requests_per_minute=10_000_000,
    characters_per_minute=1_000_000_000,
    characters_per_month=10**12,
    concurrent_requests=1000,
)
SCOPE_BASE: dict[str, Any] = {
    "type": "http",
    "method": "POST",
    "path": "/translate",
    "raw_path": b"/translate",
    "query_string": b"",
    "headers": [
        (b"authorization", b"Bearer " + KEY.encode()),
        (b"content-type", b"application/json"),
    ],
}


async def _inner(scope: Any, receive: Any, send: Any) -> None:
    await charge(120, ("en", "de"))
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"{}", "more_body": False})


async def _receive() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


async def _send(message: Any) -> None:
    return None


def _gate(limiter: Limiter | None, limits: Limits) -> ApiGate:
    return ApiGate(
        _inner,
        open_paths=frozenset(),
        json_bodies=frozenset({"/translate"}),
        keys=KeyDirectory((KEY,), default_limits=limits),
        limiter=limiter,
    )


async def _time(gate: ApiGate, requests: int) -> list[float]:
    times = []
    for _ in range(requests):
        scope = {**SCOPE_BASE, "state": {}}
        started = time.perf_counter_ns()
        await gate(scope, _receive, _send)  # type: ignore[arg-type]
        times.append((time.perf_counter_ns() - started) / 1000)
    return times


async def _round_trips(store: DatabaseLimits, calls: int) -> dict[str, list[float]]:
    bucket = Bucket(60 / LIMITS.requests_per_minute, 1000.0)  # type: ignore[operator]
    found: dict[str, list[float]] = {"take": [], "reserve": []}
    for i in range(calls):
        started = time.perf_counter_ns()
        await store.take(f"key:bench{i % 8}", "requests", 1, bucket)
        found["take"].append((time.perf_counter_ns() - started) / 1000)
        started = time.perf_counter_ns()
        await store.reserve(f"key:bench{i % 8}", "2099-01", 100, 100, 10**12)
        found["reserve"].append((time.perf_counter_ns() - started) / 1000)
    return found


def _stats(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return statistics.median(ordered), ordered[int(len(ordered) * 0.99)]


async def _run(args: argparse.Namespace, postgres_url: str) -> int:
    folder = Path(tempfile.mkdtemp(prefix="limit-bench-"))
    urls = {
        "sqlite": sqlite_url(folder / "accounts.sqlite3"),
        "postgresql": database_url(postgres_url),
    }
    async with AsyncExitStack() as resources:
        storage = Storage()
        resources.push_async_callback(storage.close)
        arms: dict[str, Callable[[], ApiGate]] = {}
        stores: dict[str, DatabaseLimits] = {}
        arms["keys"] = lambda: _gate(None, NO_LIMITS)
        unlimited = Limiter()
        arms["unlimited"] = lambda: _gate(unlimited, NO_LIMITS)
        for backend, url in urls.items():
            database = storage.database(url)
            await upgrade(database, "accounts")
            limiter = Limiter()
            await limiter.open(database, resources)
            stores[backend] = DatabaseLimits(database)
            arms[f"limited-{backend}"] = lambda limiter=limiter: _gate(limiter, LIMITS)  # type: ignore[misc]
        gates = {name: make() for name, make in arms.items()}
        times: dict[str, list[float]] = {name: [] for name in gates}
        for gate in gates.values():  # warm: the first chunks, caches, connections
            await _time(gate, 200)
        for _ in range(args.rounds):
            for name, gate in gates.items():
                times[name] += await _time(gate, args.requests)
        floor = _stats(times["keys"])
        print(f"per request, {args.rounds} rounds x {args.requests} requests (microseconds)")
        print(f"{'arm':22} {'p50':>8} {'p99':>8} {'added p50':>10} {'added p99':>10}")
        for name, measured in times.items():
            p50, p99 = _stats(measured)
            print(f"{name:22} {p50:8.1f} {p99:8.1f} {p50 - floor[0]:10.1f} {p99 - floor[1]:10.1f}")
        print("one chunk's round trip to the store (microseconds)")
        for backend, store in stores.items():
            for what, measured in (await _round_trips(store, args.round_trips)).items():
                p50, p99 = _stats(measured)
                print(f"{backend:12} {what:8} p50 {p50:8.1f}  p99 {p99:8.1f}")
    return 0


def run(args: argparse.Namespace) -> int:
    with ExitStack() as stack:
        url = args.database_url
        if url is None:
            sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
            from tests.support.postgres import throwaway_cluster

            url = stack.enter_context(throwaway_cluster()).new_database()
        return asyncio.run(_run(args, url))


def add_parser(sub: Any) -> None:
    parser = sub.add_parser("limit-checks", help="the per-request cost of the limit checks")
    parser.add_argument("--requests", type=int, default=5000, help="per arm and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--round-trips", type=int, default=300, help="store calls timed")
    parser.add_argument("--database-url", help="PostgreSQL (default: a throwaway cluster)")
    parser.set_defaults(handler=run)
