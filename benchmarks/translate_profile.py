"""Where one `/translate` request's CPU goes: the service's app over the zero-latency engine
double, driven in this process straight through ASGI (no socket, no HTTP client), under
cProfile.

    python -m benchmarks.translate_profile [--api translate-short] [--requests 2000]
        [--top 10] [--sort tottime|cumulative] [--pstats FILE]

Bodies are the http-layer benchmark's (`benchmarks http-layer`, its `--apis`): the default
workload's texts (`translate`, `chat`), their first words (`translate-short`, `chat-short`) or
lists of 50 of those (`translate-50`). The requests are sent one after the other; what is
printed is the process's CPU time per request without the profiler (compare before and after
on the same machine, at the same load), the Python function calls per request and the
profile's top functions.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import sys
import time
from pathlib import Path
from typing import Any

import msgspec

HERE = Path(__file__).resolve().parent


def bodies(api: str, count: int) -> list[bytes]:
    """The http-layer benchmark's request bodies for `api`, cycled to `count`."""
    from benchmarks.http_layer import route_items, route_target
    from translate_server.loadgen.cli import add_workload_arguments, workload_from_args

    parser = argparse.ArgumentParser()
    add_workload_arguments(parser)
    _, items = workload_from_args(parser.parse_args([]))
    items = route_items(api, items, 64)
    target = route_target(api, "http://127.0.0.1", items)
    return [msgspec.json.encode(target.body(items[i % len(items)])) for i in range(count)]


async def call(app: Any, path: str, body: bytes) -> bytes:
    """One request through the app's ASGI callable, as uvicorn would send it."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [
            (b"host", b"127.0.0.1"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }
    sent: list[bytes] = []
    received = False

    async def receive() -> dict[str, Any]:
        nonlocal received
        if received:
            await asyncio.Event().wait()  # a disconnect never comes
        received = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            assert message["status"] == 200, message
        elif message["type"] == "http.response.body":
            sent.append(message.get("body", b""))

    await app(scope, receive, send)
    return b"".join(sent)


async def drive(api: str, requests: int, profile: cProfile.Profile | None) -> float:
    sys.path.insert(0, str(HERE))
    from apps import litestar_app  # benchmarks/apps.py, as the http-layer benchmark runs it

    app = litestar_app()
    path = "/v1/chat/completions" if api.startswith("chat") else "/translate"
    loads = bodies(api, requests)
    async with app.lifespan():
        for body in loads[:200]:  # warm: caches, lazy imports, detector models
            await call(app, path, body)
        if profile is not None:
            profile.enable()
        started = time.process_time()
        for body in loads:
            await call(app, path, body)
        elapsed = time.process_time() - started
        if profile is not None:
            profile.disable()
    return elapsed / requests


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--api", default="translate-short", help="an http-layer route (default translate-short)"
    )
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--sort", default="tottime", choices=("tottime", "cumulative"))
    parser.add_argument("--pstats", default=None, help="write the raw profile here")
    parser.add_argument(
        "--plain", action="store_true", help="no profile (under a sampling profiler: py-spy)"
    )
    args = parser.parse_args(argv)
    plain = asyncio.run(drive(args.api, args.requests, None))
    if args.plain:
        print(f"{args.api}: {plain * 1e6:,.0f} us CPU per request")
        return 0
    profile = cProfile.Profile()
    asyncio.run(drive(args.api, args.requests, profile))
    print(f"{args.api}: {plain * 1e6:,.0f} us CPU per request without the profiler")
    stats = pstats.Stats(profile, stream=sys.stdout)
    if args.pstats:
        stats.dump_stats(args.pstats)
    calls = sum(entry[1] for entry in stats.stats.values())  # type: ignore[attr-defined]
    print(f"function calls per request: {calls / args.requests:,.0f}")
    stats.sort_stats(args.sort).print_stats(args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
