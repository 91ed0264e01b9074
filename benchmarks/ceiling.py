"""`bench ceiling`: what one serving core sustains.

One saturated uvicorn worker, pinned to one core, around the zero-latency engine double
(``benchmarks/zero_engine.py``), takes `http-layer`'s closed-loop load (the load generator on
the other cores). Its CPU time per streamed token and per non-streamed request, inverted, is
the throughput one core sustains when the engine costs nothing:

- ``litestar``         the service at its defaults (coalesced streams: `--stream-coalesce-ms
                       40`; over a zero-latency engine the pace asks for the largest interval);
- ``uncoalesced``      the same with `--stream-coalesce-ms 0` (one chunk per token);
- ``floor``            bare ASGI on the same uvicorn, one event per token: uvicorn and the socket;
- ``floor-coalesced``  the same, one event per coalesced output;
- ``litestar-floor``   the smallest Litestar app serving the same routes and bodies
                       (``benchmarks/litestar_floor.py``): the framework's own share.

Our code is the service above its floor. The double has no `AsyncLLM`, so vLLM's output
processing and detokenization are not in these figures. With ``--vllm-model DIR`` (the tiny
test model) the same run adds `compare`'s real-engine arms, streamed: ``engine`` (AsyncLLM
in-process, no HTTP: its serving-process CPU per token is vLLM's output processing plus the
load generator's loop), ``chat`` (the service at its defaults) and ``vllm`` (vLLM's own server
at its defaults), one after another on the real engine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import http_layer
from translate_server.loadgen.report import write_json

ARMS: tuple[str, ...] = ("litestar", "uncoalesced", "floor", "floor-coalesced", "litestar-floor")
APIS: tuple[str, ...] = ("chat-stream", "translate", "chat")
# Completion tokens of a non-streamed answer where a run did not count them (the double's
# fixed reply).
REPLY_TOKENS = 12
# The floor each arm stands on (uvicorn and the socket): `_above_floor`, `_vs_floor`.
FLOORS = {
    "litestar": "floor-coalesced",
    "uncoalesced": "floor",
    "litestar-floor": "floor-coalesced",
}
# The service over the framework's own floor: `_above_framework`, `_vs_framework`.
FRAMEWORK = ("litestar", "litestar-floor")
# Every (arm, the arm below it, the keys' suffix) the figures and the report compare.
COMPARISONS = (*((arm, floor, "floor") for arm, floor in FLOORS.items()), (*FRAMEWORK, "framework"))
REAL_ARMS: tuple[str, ...] = ("engine", "chat", "vllm")


def one_core_figures(medians: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """Per arm: streamed tokens/s, non-streamed requests/s and tokens/s that one core sustains
    (1 / its CPU time), and for the service arms what their own code adds above the floor."""
    table: dict[str, dict[str, float]] = {}
    for arm in ARMS:
        row: dict[str, float] = {}
        stream = medians.get(f"{arm} chat-stream", {})
        if "server_cpu_us_per_token" in stream:
            us = stream["server_cpu_us_per_token"]
            row["stream_us_per_token"] = us
            row["stream_tokens_per_s"] = 1e6 / us
        for api in ("translate", "chat"):
            m = medians.get(f"{arm} {api}")
            if m is None:
                continue
            us = m["server_cpu_us_per_request"]
            row[f"{api}_us_per_request"] = us
            row[f"{api}_requests_per_s"] = 1e6 / us
            # The double answers a text with as many tokens as a translation of it would have;
            # the floor always with the same fixed answer.
            row[f"{api}_tokens_per_s"] = m.get("output_tokens_per_request", REPLY_TOKENS) * 1e6 / us
        if row:
            table[arm] = row
    for arm, floor, suffix in COMPARISONS:
        if arm not in table or floor not in table:
            continue
        below, row = table[floor], table[arm]
        for key in ("stream_us_per_token", "translate_us_per_request", "chat_us_per_request"):
            if key in row and key in below:
                row[f"{key}_above_{suffix}"] = row[key] - below[key]
                row[f"{key}_vs_{suffix}"] = row[key] / below[key]
    return table


def real_engine_figures(medians: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """The real engine's arms: serving-process CPU per streamed token, and the tokens/s one core
    at that cost would sustain; `chat_vs_vllm` is the goal's ratio."""
    table: dict[str, dict[str, float]] = {}
    for arm in REAL_ARMS:
        m = medians.get(arm)
        if not m or "front_cpu_ms_per_1k_tokens" not in m:
            continue
        us = m["front_cpu_ms_per_1k_tokens"]  # ms per 1k tokens = µs per token
        table[arm] = {
            "us_per_token": us,
            "one_core_tokens_per_s": 1e6 / us,
            "output_tokens_per_s": m.get("output_tokens_per_s", float("nan")),
        }
    if "chat" in table and "vllm" in table:
        table["chat"]["vs_vllm"] = table["chat"]["us_per_token"] / table["vllm"]["us_per_token"]
    return table


def format_ceiling(result: dict[str, Any]) -> str:
    lines = [
        "one serving core, zero-latency engine (CPU per unit; what one core sustains):",
        (
            f"{'arm':<16} {'stream us/tok':>13} {'stream tok/s':>13} {'/translate us':>13} "
            f"{'req/s':>7} {'tok/s':>8} {'chat us':>8} {'req/s':>7} {'tok/s':>8}"
        ),
    ]
    for arm, r in result["one_core"].items():

        def cell(key: str, width: int, fmt: str = ",.0f", row: dict = r) -> str:
            return f"{row[key]:>{width}{fmt}}" if key in row else " " * (width - 1) + "-"

        lines.append(
            f"{arm:<16} {cell('stream_us_per_token', 13, ',.1f')} "
            f"{cell('stream_tokens_per_s', 13)} {cell('translate_us_per_request', 13)} "
            f"{cell('translate_requests_per_s', 7)} {cell('translate_tokens_per_s', 8)} "
            f"{cell('chat_us_per_request', 8)} {cell('chat_requests_per_s', 7)} "
            f"{cell('chat_tokens_per_s', 8)}"
        )
    for arm, floor, suffix in COMPARISONS:
        r = result["one_core"].get(arm, {})
        parts = [
            f"{label} {r[f'{key}_above_{suffix}']:,.1f} us above, {r[f'{key}_vs_{suffix}']:.2f}x"
            for label, key in (
                ("streamed token", "stream_us_per_token"),
                ("/translate", "translate_us_per_request"),
                ("chat", "chat_us_per_request"),
            )
            if f"{key}_above_{suffix}" in r
        ]
        if parts:
            lines.append(f"{arm} over {floor}: " + "; ".join(parts))
    real = result.get("real_engine")
    if real:
        lines.append("real engine, streamed (serving-process CPU per token; one core at that):")
        for arm, r in real.items():
            extra = f"  ({r['vs_vllm']:.2f}x vLLM's server)" if "vs_vllm" in r else ""
            lines.append(
                f"{arm:<16} {r['us_per_token']:>8.1f} us/tok {r['one_core_tokens_per_s']:>9,.0f} "
                f"tok/s  (ran at {r['output_tokens_per_s']:,.0f} tok/s){extra}"
            )
    return "\n".join(lines)


def _http_layer_args(args: argparse.Namespace) -> argparse.Namespace:
    values = dict(vars(args))
    values.update(apps=",".join(ARMS), apis=",".join(APIS), baseline=None)
    return argparse.Namespace(**values)


def run_real_engine(args: argparse.Namespace, log) -> dict[str, Any]:
    """`compare`'s engine, chat and vllm arms on `--vllm-model`, streamed, exactly 64 tokens."""
    from benchmarks.compare import _workload_argv
    from benchmarks.compare_arms import CompareConfig
    from benchmarks.compare_runner import run_comparison
    from translate_server.loadgen.cli import add_workload_arguments, workload_from_args

    model = str(Path(args.vllm_model).resolve())
    parser = argparse.ArgumentParser()
    add_workload_arguments(parser)
    workload = parser.parse_args(
        [
            "--tokenizer",
            model,
            "--max-input-tokens",
            "120",
            "--exact-output",
            "--max-tokens",
            str(args.stream_tokens),
        ]
    )
    _, items = workload_from_args(workload)
    out_dir = Path(args.out_dir or f"bench-results/ceiling-{time.strftime('%Y%m%d-%H%M%S')}")
    out_dir.mkdir(parents=True, exist_ok=True)
    cfg = CompareConfig(
        model=model,
        arms=list(REAL_ARMS),
        rounds=args.vllm_rounds,
        concurrency=16,
        requests=args.vllm_requests,
        warmup=16,
        stream=True,
        max_num_seqs=16,
        max_model_len=1024,
        dtype="float32",
        max_num_batched_tokens=None,
        workload_argv=_workload_argv(workload),
        out_dir=out_dir,
        startup_timeout_s=600.0,
    )
    return run_comparison(cfg, items, log=log)


def run_ceiling(args: argparse.Namespace, log=print) -> dict[str, Any]:
    layer = http_layer.run_http_layer(_http_layer_args(args), log=log)
    result: dict[str, Any] = {
        "config": layer["config"],
        "http_layer": layer,
        "one_core": one_core_figures(layer["medians"]),
    }
    if args.vllm_model:
        compared = run_real_engine(args, log)
        result["compare"] = compared
        result["real_engine"] = real_engine_figures(compared["medians"])
    return result


def add_parser(sub: argparse._SubParsersAction) -> None:
    from translate_server.loadgen.cli import add_workload_arguments

    parser = sub.add_parser(
        "ceiling",
        help="what one serving core sustains: streamed and non-streamed tokens/s, broken down",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--bench-dir", default=None, help="the folder of apps.py (default: this one)"
    )
    parser.add_argument(
        "--stream-tokens", type=int, default=64, help="tokens per streamed answer (default 64)"
    )
    parser.add_argument("--rounds", type=int, default=3, help="alternating repeats (default 3)")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--requests", type=int, default=2000, help="measured per arm and round")
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument(
        "--no-pin", action="store_true", help="do not pin server and client to separate cores"
    )
    parser.add_argument(
        "--vllm-model",
        default=None,
        metavar="DIR",
        help="also run the real engine's arms (engine in-process, the service, vLLM's server) "
        "on this model, streamed",
    )
    parser.add_argument("--vllm-rounds", type=int, default=1)
    parser.add_argument("--vllm-requests", type=int, default=200)
    parser.add_argument("--out-dir", default=None, help="the real engine's logs")
    parser.add_argument("--json", dest="json_path", default=None)
    add_workload_arguments(parser)
    parser.set_defaults(handler=cmd_ceiling)


def cmd_ceiling(args: argparse.Namespace) -> int:
    result = run_ceiling(args, log=lambda m: print(m, file=sys.stderr, flush=True))
    print(format_ceiling(result))
    if args.json_path:
        write_json(args.json_path, result)
        print(f"wrote {args.json_path}", file=sys.stderr)
    return 0
