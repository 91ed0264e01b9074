"""`python -m benchmarks api-processes`: one engine core behind 1 and behind N front-end
processes (`serve --api-processes`), on the real engine, in one run.

Each arm is a real `translate-server serve` on the same model; the same closed-loop load
runs against each in turn: `--streams` concurrent streamed chat completions of exactly
`--tokens` tokens, then `--clients` concurrent non-streamed chat completions of one token.

Reported per arm: streamed tokens/s, non-streamed requests/s, and the CPU seconds the front
ends spent (every process but vLLM's engine core and worker) per streamed token and per
request. On a machine with few cores the engine, the front ends and this load generator
share them: throughput then shows what the machine sustains, not what a front end could,
and the CPU per token is the figure that carries over to a larger machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import psutil

from benchmarks.compare_processes import CHECKOUT, free_port

ENGINE_PREFIX = "VLLM::"
ENV = {
    "VLLM_NO_USAGE_STATS": "1",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "TRANSLATE_LOG_LEVEL": "warning",
}


def add_parser(sub: Any) -> None:
    parser = sub.add_parser("api-processes", help="one engine core, 1 vs N front ends")
    parser.add_argument("--model", required=True, help="model directory (e.g. the tiny model)")
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--streams", type=int, default=32)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--max-num-seqs", type=int, default=64)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    rows = []
    for count in args.processes:
        print(f"--- {count} front-end process(es)", flush=True)
        rows.append(_arm(args, count))
    _report(args, rows)
    return 0


def _arm(args: argparse.Namespace, count: int) -> dict[str, float]:
    port = free_port()
    command = [
        sys.executable, "-m", "translate_server.cli", "serve",
        "--port", str(port), "--model", args.model, "--served-model-name", "bench",
        "--max-model-len", "512", "--max-num-seqs", str(args.max_num_seqs),
        "--max-queued-requests", str(max(args.streams, args.clients) * 2),
        "--no-quality-guard", "--log-format", "json", "--api-processes", str(count),
    ]  # fmt: skip
    env = {**os.environ, **ENV, "PYTHONPATH": str(CHECKOUT / "src")}
    server = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        row = asyncio.run(_measure(f"http://127.0.0.1:{port}", server, args))
        row["processes"] = count
        print(json.dumps(row), flush=True)
        return row
    finally:
        server.terminate()
        server.wait(timeout=120)


async def _measure(
    base: str, server: subprocess.Popen[bytes], args: argparse.Namespace
) -> dict[str, float]:
    await _ready(base, server)
    row: dict[str, float] = {}
    await _stream_load(base, args, 2.0)  # warm-up
    fronts = _front_ends(server.pid)
    cpu = _cpu(fronts)
    tokens, elapsed = await _stream_load(base, args, args.seconds)
    row["stream_tok_s"] = tokens / elapsed
    row["stream_cpu_us_per_tok"] = (_cpu(fronts) - cpu) / max(tokens, 1) * 1e6
    cpu = _cpu(fronts)
    requests, elapsed = await _request_load(base, args, args.seconds)
    row["req_s"] = requests / elapsed
    row["req_cpu_us"] = (_cpu(fronts) - cpu) / max(requests, 1) * 1e6
    return row


async def _ready(base: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 300
    async with httpx.AsyncClient(base_url=base, timeout=5) as client:
        while time.monotonic() < deadline:
            if server.poll() is not None:
                raise SystemExit(f"server exited with {server.returncode}")
            try:
                if (await client.get("/health")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.5)
    raise SystemExit("server not ready")


def _front_ends(pid: int) -> list[psutil.Process]:
    """The serving processes: the server itself and its children, less vLLM's engine."""
    root = psutil.Process(pid)
    found = [root]
    for child in root.children(recursive=True):
        try:
            name = child.name()
            cmdline = " ".join(child.cmdline())
        except psutil.Error:
            continue
        if name.startswith(ENGINE_PREFIX) or "resource_tracker" in cmdline:
            continue
        found.append(child)
    return found


def _cpu(processes: list[psutil.Process]) -> float:
    total = 0.0
    for process in processes:
        times = process.cpu_times()
        total += times.user + times.system
    return total


def _body(args: argparse.Namespace, tokens: int, stream: bool) -> dict[str, Any]:
    return {
        "model": "bench",
        "messages": [{"role": "user", "content": "Translate to German: good morning"}],
        "max_tokens": tokens,
        "min_tokens": tokens,
        "ignore_eos": True,
        "stream": stream,
        **({"stream_options": {"include_usage": True}} if stream else {}),
    }


async def _stream_load(base: str, args: argparse.Namespace, seconds: float) -> tuple[int, float]:
    body = _body(args, args.tokens, True)
    end = time.monotonic() + seconds
    counts = [0] * args.streams

    async def worker(i: int) -> None:
        async with httpx.AsyncClient(base_url=base, timeout=120) as client:
            while time.monotonic() < end:
                async with client.stream("POST", "/v1/chat/completions", json=body) as response:
                    async for line in response.aiter_lines():
                        if line.startswith("data: {") and '"usage":{' in line.replace(" ", ""):
                            usage = json.loads(line[6:]).get("usage") or {}
                            counts[i] += usage.get("completion_tokens", 0)

    started = time.monotonic()
    await asyncio.gather(*(worker(i) for i in range(args.streams)))
    return sum(counts), time.monotonic() - started


async def _request_load(base: str, args: argparse.Namespace, seconds: float) -> tuple[int, float]:
    body = _body(args, 1, False)
    end = time.monotonic() + seconds
    counts = [0] * args.clients

    async def worker(i: int) -> None:
        async with httpx.AsyncClient(base_url=base, timeout=120) as client:
            while time.monotonic() < end:
                response = await client.post("/v1/chat/completions", json=body)
                counts[i] += response.status_code == 200

    started = time.monotonic()
    await asyncio.gather(*(worker(i) for i in range(args.clients)))
    return sum(counts), time.monotonic() - started


def _report(args: argparse.Namespace, rows: list[dict[str, float]]) -> None:
    base = rows[0]
    print()
    print(
        f"cores: {os.cpu_count()}  streams: {args.streams} x {args.tokens} tokens  "
        f"clients: {args.clients}  window: {args.seconds:.0f} s  model: {Path(args.model).name}"
    )
    header = (
        "front ends",
        "stream tok/s",
        "x",
        "front CPU us/tok",
        "req/s",
        "x",
        "front CPU us/req",
    )
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print(
            f"| {row['processes']:.0f} | {row['stream_tok_s']:.0f} "
            f"| {row['stream_tok_s'] / base['stream_tok_s']:.2f} "
            f"| {row['stream_cpu_us_per_tok']:.0f} | {row['req_s']:.1f} "
            f"| {row['req_s'] / base['req_s']:.2f} | {row['req_cpu_us']:.0f} |"
        )
