"""`bench http-layer`: the HTTP layer alone. The service's Litestar app and a FastAPI + pydantic
app doing the same work (``benchmarks/fastapi_app.py`` in a source checkout) each run on one uvicorn
worker around a zero-latency engine double (``benchmarks/zero_engine.py``), and take the same
closed-loop load in alternation.

A third app, the floor (``benchmarks/asgi_floor.py``), is bare ASGI on the same uvicorn: it decodes
the body and answers fixed bytes, so what an app spends above it is its own.

With ``--baseline DIR`` (another checkout, e.g. ``git worktree add /tmp/main main``) the arm
``baseline`` is the service as that checkout has it, its own ``src/`` and ``benchmarks/apps.py``,
beside this one's ``litestar``: a change measured before and after in the same rounds.

Two more arms, on request (``--apps``), price tracing: ``traced`` is the service with its
OpenTelemetry tracing on, and ``otel-asgi`` the service with Litestar's OpenTelemetry middleware
(opentelemetry-instrumentation-asgi) instead; both export OTLP over HTTP to a sink in this
process that discards what it gets, so serializing and sending the spans is counted.

Routes: ``translate``, ``chat`` and ``chat-stream`` (streamed chat completions of exactly
``--stream-tokens`` tokens, which the engine double streams one per event-loop turn); on
request, ``translate-stream`` (a streamed ``/translate``: an event per sentence; the FastAPI
app does not stream it and answers JSON).

Reported per app and route: requests/s, and the server's CPU time per request (psutil), and
per streamed token. With two or more cores the servers are pinned to one core and the load
generator to another; the CPU figure does not depend on how fast the client is, so it is the
one to trust when the client saturates its core first (`capacity` = 1 / CPU time per request).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks.compare_processes import free_port
from benchmarks.cpu import CpuMeter
from benchmarks.http_layer_servers import (
    APPS,
    BASELINE,
    FACTORIES,
    TRACED_APPS,
    SpanSink,
    find_bench_dir,
    start_app,
    wait_ready,
)
from benchmarks.http_layer_summary import format_summary, summarize_rounds
from translate_server.loadgen.client import Target, run_level
from translate_server.loadgen.report import write_json
from translate_server.loadgen.workload import WorkItem

APIS: tuple[str, ...] = ("translate", "chat", "chat-stream")
EXTRA_APIS: tuple[str, ...] = ("translate-stream",)  # not compared by default
SERVED_NAME = "bench-model"  # as benchmarks/apps.py serves it


async def measure(
    process: subprocess.Popen,
    target: Target,
    items: list,
    concurrency: int,
    requests: int,
    warmup: int,
) -> dict[str, float]:
    if warmup:
        await run_level(target, items, concurrency=concurrency, requests=warmup)
    meter = CpuMeter.of_pid(process.pid)
    stats = await run_level(target, items, concurrency=concurrency, requests=requests)
    cpu = meter.stop()
    figures = {
        "requests_per_s": stats.requests_per_s,
        "server_cpu_us_per_request": cpu["front_cpu_s"] / max(stats.ok, 1) * 1e6,
        "latency_p50_ms": stats.latency_ms["p50"],
        "latency_p99_ms": stats.latency_ms["p99"],
        "errors": stats.errors,
        "output_tokens_per_request": stats.output_tokens / max(stats.ok, 1),
    }
    if target.stream:
        figures["server_cpu_us_per_token"] = cpu["front_cpu_s"] / max(stats.output_tokens, 1) * 1e6
    return figures


def route_target(api: str, base_url: str) -> Target:
    if api == "chat-stream":
        return Target(base_url, "chat", model=SERVED_NAME, stream=True)
    if api == "translate-stream":
        return Target(base_url, "translate", model=SERVED_NAME, stream=True)
    return Target(base_url, api, model=SERVED_NAME, stream=False)


def route_items(api: str, items: list[WorkItem], stream_tokens: int) -> list[WorkItem]:
    """The workload of one route; `chat-stream` asks for exactly `stream_tokens` tokens each."""
    if api != "chat-stream":
        return items
    return [
        dataclasses.replace(item, max_tokens=stream_tokens, exact_output=True) for item in items
    ]


def run_http_layer(args: argparse.Namespace, log=print) -> dict[str, Any]:
    from translate_server.loadgen.cli import workload_from_args

    bench_dir = find_bench_dir(args.bench_dir)
    apis = [a.strip() for a in args.apis.split(",") if a.strip()]
    unknown = sorted(set(apis) - set(APIS + EXTRA_APIS))
    if unknown:
        known = ", ".join(APIS + EXTRA_APIS)
        raise ValueError(f"unknown route(s) {', '.join(unknown)}; choose from {known}")
    _, items = workload_from_args(args)
    loads = {api: route_items(api, items, args.stream_tokens) for api in apis}
    cpus = sorted(os.sched_getaffinity(0))
    pinned = not args.no_pin and len(cpus) >= 2
    server_cpus = {cpus[0]} if pinned else None
    client_cpus = set(cpus[1:]) if pinned else None

    apps = [a.strip() for a in args.apps.split(",") if a.strip()]
    baseline = Path(args.baseline).resolve() if args.baseline else None
    if baseline is not None and BASELINE not in apps:
        apps.insert(0, BASELINE)
    unknown = sorted(set(apps) - set(FACTORIES))
    if unknown:
        raise ValueError(f"unknown app(s) {', '.join(unknown)}; choose from {', '.join(FACTORIES)}")
    sink = SpanSink() if set(apps) & set(TRACED_APPS) else None
    ports = {name: free_port() for name in apps}
    processes = {
        name: start_app(
            name,
            bench_dir,
            ports[name],
            server_cpus,
            sink.url if sink and name in TRACED_APPS else None,
            baseline,
        )
        for name in apps
    }
    previous_affinity = os.sched_getaffinity(0)
    try:
        for name in apps:
            wait_ready(processes[name], ports[name])
        if client_cpus:
            os.sched_setaffinity(0, client_cpus)
        arms = [(app, api) for api in apis for app in apps]
        rounds = []
        for r in range(args.rounds):
            shift = r % len(arms)
            figures = {}
            for app, api in arms[shift:] + arms[:shift]:
                target = route_target(api, f"http://127.0.0.1:{ports[app]}")
                figures[f"{app} {api}"] = asyncio.run(
                    measure(
                        processes[app],
                        target,
                        loads[api],
                        args.concurrency,
                        args.requests,
                        args.warmup,
                    )
                )
                f = figures[f"{app} {api}"]
                log(
                    f"round {r + 1}/{args.rounds} {app:>9} {api:<11} "
                    f"{f['requests_per_s']:8,.0f} req/s  "
                    f"{f['server_cpu_us_per_request']:6,.0f} us cpu/req  {f['errors']} errors"
                )
            rounds.append(figures)
    finally:
        os.sched_setaffinity(0, previous_affinity)
        for process in processes.values():
            process.terminate()
        for process in processes.values():
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
        if sink is not None:
            sink.close()
    summary = summarize_rounds(rounds, apis)
    return {
        "config": {
            "apps": apps,
            "baseline": str(baseline) if baseline else None,
            "rounds": args.rounds,
            "requests": args.requests,
            "warmup": args.warmup,
            "concurrency": args.concurrency,
            "apis": apis,
            "pinned": pinned,
            "stream_tokens": args.stream_tokens,
            "server_cpus": sorted(server_cpus or []),
            "client_cpus": sorted(client_cpus or []),
        },
        "rounds": rounds,
        **summary,
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bench-dir", default=None, help="the folder of apps.py (default: this one)"
    )
    parser.add_argument(
        "--apps",
        default=",".join(APPS),
        help=f"arms to run (default: {','.join(APPS)}; also: unguarded, uncoalesced, "
        f"floor-coalesced, {','.join(TRACED_APPS)})",
    )
    parser.add_argument(
        "--baseline",
        default=None,
        metavar="DIR",
        help="another checkout: adds the arm `baseline`, the service as DIR has it",
    )
    parser.add_argument(
        "--apis",
        default=",".join(APIS),
        help=f"routes to compare (default: {','.join(APIS)}; also: {','.join(EXTRA_APIS)})",
    )
    parser.add_argument(
        "--stream-tokens", type=int, default=64, help="tokens per chat-stream answer (default 64)"
    )
    parser.add_argument("--rounds", type=int, default=5, help="alternating repeats (default 5)")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--requests", type=int, default=3000, help="measured per arm and round")
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument(
        "--no-pin", action="store_true", help="do not pin server and client to separate cores"
    )


def add_parser(sub: argparse._SubParsersAction) -> None:
    from translate_server.loadgen.cli import add_workload_arguments

    parser = sub.add_parser(
        "http-layer",
        help="Litestar service vs FastAPI + pydantic, zero-latency engine, one uvicorn worker",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser)
    parser.add_argument("--json", dest="json_path", default=None)
    add_workload_arguments(parser)
    parser.set_defaults(handler=cmd_http_layer)


def cmd_http_layer(args: argparse.Namespace) -> int:
    result = run_http_layer(args, log=lambda m: print(m, file=sys.stderr, flush=True))
    print(format_summary(result))
    if args.json_path:
        write_json(args.json_path, result)
        print(f"wrote {args.json_path}", file=sys.stderr)
    return 0
