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
app does not stream it and answers JSON), and short strings, as a user interface sends them
(a text's first sentence, or its first ``SHORT_WORDS`` words): ``translate-short`` and
``chat-short`` one per request, ``translate-50`` a list of 50 distinct ones of one language pair
per request.

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
# Not compared by default.
EXTRA_APIS: tuple[str, ...] = ("translate-stream", "translate-short", "chat-short", "translate-50")
SHORT_WORDS = 8  # a short string: a button, a menu entry, a message of a user interface
LIST_TEXTS = 50  # the short strings of one `translate-50` request
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


@dataclasses.dataclass(frozen=True, slots=True)
class ListTarget(Target):
    """`/translate` with a list of texts: the item's short string and the next ones of its
    language pair, `LIST_TEXTS` in all."""

    lists: dict[int, list[str]] = dataclasses.field(default_factory=dict)

    def body(self, item: WorkItem) -> dict[str, Any]:
        return {**Target.body(self, short_item(item)), "text": self.lists[item.index]}


def route_target(api: str, base_url: str, items: list[WorkItem] | None = None) -> Target:
    if api == "chat-stream":
        return Target(base_url, "chat", model=SERVED_NAME, stream=True)
    if api == "translate-stream":
        return Target(base_url, "translate", model=SERVED_NAME, stream=True)
    if api == "translate-50":
        lists = text_lists(items or [])
        return ListTarget(base_url, "translate", model=SERVED_NAME, lists=lists)
    return Target(base_url, api.removesuffix("-short"), model=SERVED_NAME, stream=False)


def route_items(api: str, items: list[WorkItem], stream_tokens: int) -> list[WorkItem]:
    """The workload of one route; `chat-stream` asks for exactly `stream_tokens` tokens each;
    the short routes send each text's first words."""
    if api in ("translate-short", "chat-short"):
        return [short_item(item) for item in items]
    if api != "chat-stream":
        return items
    return [
        dataclasses.replace(item, max_tokens=stream_tokens, exact_output=True) for item in items
    ]


def short_item(item: WorkItem) -> WorkItem:
    """The item's first short string (`short_strings`)."""
    return _shortened(item, short_strings(item.text)[0])


def short_strings(text: str) -> list[str]:
    """`text` cut into short strings: its first sentence, or `SHORT_WORDS` words, at a time
    (with a full stop where a sentence goes on)."""
    words, found = text.split(), []
    while words:
        cut = next(
            (i + 1 for i, word in enumerate(words[:SHORT_WORDS]) if word[-1] in ".!?"),
            SHORT_WORDS,
        )
        while cut < len(words) and not any(c.isalnum() for c in words[cut]):
            cut += 1  # French punctuation: `vous ?`
        part = " ".join(words[:cut]).rstrip(",;:")
        found.append(part if part[-1] in ".!?" else part + ".")
        words = words[cut:]
    return found


def _shortened(item: WorkItem, text: str) -> WorkItem:
    tokens = len(text.split()) * 13 // 10 + 1  # as the workload estimates them
    # Room for any answer the engine double makes (never cut off: no retry).
    return dataclasses.replace(item, text=text, input_tokens=tokens, max_tokens=max(32, 4 * tokens))


def _windows(words: list[str]) -> list[str]:
    """Runs of six words, every three words, as short strings."""
    runs = (" ".join(words[i : i + 6]).rstrip(",;:") for i in range(0, len(words) - 5, 3))
    return [run if run[-1] in ".!?" else run + "." for run in runs]


def text_lists(items: list[WorkItem]) -> dict[int, list[str]]:
    """Per item, `LIST_TEXTS` distinct short strings of its language pair, the item's own
    first (from the original texts: `short_item` keeps only each one's first)."""
    by_pair: dict[tuple[str, str], list[WorkItem]] = {}
    for item in items:
        by_pair.setdefault((item.source_lang, item.target_lang), []).append(item)
    lists = {}
    for same in by_pair.values():
        # The pair's texts repeat a few dozen sentences: their windows of words are many.
        pool = list(
            dict.fromkeys(
                [short_item(item).text for item in same]
                + [w for item in same for w in _windows(item.text.split())]
            )
        )
        for item in same:
            start = pool.index(short_item(item).text)
            lists[item.index] = [pool[(start + k) % len(pool)] for k in range(LIST_TEXTS)]
    return lists


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
                target = route_target(api, f"http://127.0.0.1:{ports[app]}", loads[api])
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
