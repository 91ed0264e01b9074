"""What the key and scope checks add to a request, with 1,000 keys in the database, on either
backend: the checks alone (the gate's key lookup and the routed scope check, timed call by
call), and whole requests through the in-process app over the engine double, keyless against
keyed, interleaved.

    PYTHONPATH=src python -m benchmarks.key_check [--keys 1000] [--calls 100000]
        [--requests 3000] [--database-url postgresql://...]

The keys are made in the accounts database (SQLite files in a temporary folder, or the
PostgreSQL database given) and loaded into the key cache as the server loads them; a request
never reads the database, so the backend shows only in how long the cache takes to load.
Printed: p50 and p99 of each arm, in microseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, ClassVar

from translate_server.accounts import scopes
from translate_server.accounts.directory import KeyDirectory
from translate_server.accounts.records import Actor
from translate_server.accounts.store import AccountStore
from translate_server.app import create_app
from translate_server.http.gate import ApiGate
from translate_server.http.route_paths import SCOPE
from translate_server.http.scopes import require_scope
from translate_server.settings import load_settings
from translate_server.storage.opening import StoreDatabases

from tests.support.fakes import FakeEngine
from tests.support.harness import running
from tests.support.stores import own_stores

ACTOR = Actor(who="bench", origin="bench")


def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p50 = statistics.median(ordered)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"p50 {p50:8.1f} us   p99 {p99:8.1f} us"


async def make_keys(settings: Any, count: int) -> tuple[list[str], float]:
    """`count` keys over 100 accounts; the seconds a cache takes to load them."""
    databases = StoreDatabases.of(settings)
    try:
        store = AccountStore(await databases.migrated("accounts"))
        for team in range(100):
            await store.create_account(ACTOR, f"bench-team-{team}")
        keys = [
            (await store.create_key(ACTOR, f"bench-team-{n % 100}", scopes=scopes.DEFAULT)).key
            for n in range(count)
        ]
        started = time.perf_counter()
        await KeyDirectory(store=store).load()
        return keys, time.perf_counter() - started
    finally:
        await databases.close()


class _Handler:
    opt: ClassVar[dict[str, str]] = {SCOPE: scopes.TRANSLATE}


def checks_alone(directory: KeyDirectory, key: str | None, calls: int) -> list[float]:
    """Microseconds per call of what a request pays: the gate's refusal check (key lookup,
    the caller put in the scope) and the scope check once routed."""

    async def inner(*_: Any) -> None:
        return None

    gate = ApiGate(inner, open_paths=frozenset(), json_bodies=frozenset(), keys=directory)
    headers = [(b"authorization", f"Bearer {key}".encode())] if key else []
    samples = []
    for _ in range(calls):
        scope: dict[str, Any] = {
            "type": "http", "method": "POST", "path": "/translate", "headers": headers,
            "route_handler": _Handler,
        }  # fmt: skip
        started = time.perf_counter_ns()
        assert gate._refusal(scope) is None  # type: ignore[arg-type]
        require_scope(scope)  # type: ignore[arg-type]
        samples.append((time.perf_counter_ns() - started) / 1000)
    return samples


async def whole_requests(settings: Any, keys: list[str], count: int) -> dict[str, list[float]]:
    """/languages keyless (a server with no keys) and keyed (this one), interleaved."""
    keyed_app = create_app(settings, FakeEngine)
    open_settings = load_settings(
        {**own_stores(Path(tempfile.mkdtemp())), "served_model_name": "fake-model"}, environ={}
    )
    open_app = create_app(open_settings, FakeEngine)
    times: dict[str, list[float]] = {"keyless": [], "keyed": []}
    async with running(keyed_app) as keyed, running(open_app) as keyless:
        for n in range(count):
            for arm, client, headers in (
                ("keyless", keyless, {}),
                ("keyed", keyed, {"Authorization": f"Bearer {keys[n % len(keys)]}"}),
            ):
                started = time.perf_counter_ns()
                response = await client.get("/languages", headers=headers)
                times[arm].append((time.perf_counter_ns() - started) / 1000)
                assert response.status_code == 200, response.text
    return times


async def main(args: argparse.Namespace) -> None:
    folder = Path(tempfile.mkdtemp())
    overrides = {**own_stores(folder), "served_model_name": "fake-model", "quality_guard": False}
    if args.database_url:
        overrides["database_url"] = args.database_url
    settings = load_settings(overrides, environ={})
    keys, load_seconds = await make_keys(settings, args.keys)
    backend = "postgresql" if args.database_url else "sqlite"
    print(f"{backend}: {len(keys)} keys loaded into the cache in {load_seconds * 1000:.1f} ms")
    databases = StoreDatabases.of(settings)
    try:
        directory = KeyDirectory(store=AccountStore(await databases.migrated("accounts")))
        await directory.load()
    finally:
        await databases.close()
    for arm, key in (("checks, keyless", None), ("checks, keyed", keys[len(keys) // 2])):
        samples = checks_alone(directory if key else KeyDirectory(), key, args.calls)
        print(f"{arm:22} {percentiles(samples)}")
    for arm, samples in (await whole_requests(settings, keys, args.requests)).items():
        print(f"GET /languages, {arm:7} {percentiles(samples)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--database-url")
    asyncio.run(main(parser.parse_args()))
