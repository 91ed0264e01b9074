"""Coalesced streams: the gap between chunks a client sees, and the serving CPU per token.

    python benchmarks/stream_gaps.py [--coalesce-ms 0 20 40 50] [--pace 5-10] [--streams 16]
        [--pace-schedule 5,20,5] [--repick on off]

A real uvicorn server runs the service around an engine double at a GPU's pace (a token every
5-10 ms per stream, each stream its own pace: `paced_engine.py`), once per `--coalesce-ms`
value (`--stream-coalesce-ms`; 0 = one chunk per token). Per arm, after a warm-up round (the
server learns the engine's pace from it), `--rounds` rounds of `--streams` concurrent chat
streams of `--tokens` tokens each. Reported: chunks per stream, the gaps between a stream's
chunks as its client read them (the share longer than the bound; p50, p99, max; from the
first chunk with text on), the time to the first chunk, and the serving process's CPU time
per streamed token.

`--pace-schedule 5,20,5` replaces the drawn pace with one that changes mid-stream: a stream's
tokens in equal parts, each at its own ms per token (an engine that slows down as streams join
its batch, and speeds up again). `--repick on off` runs each arm twice: with the interval
re-picked as a stream's pace changes (the service's behaviour), and with the engine double
refusing to change a running stream's interval (each stream keeps the one it started with).

The client reads the raw socket (no HTTP library's parsing per chunk), but it shares the
machine's cores with the server: on a small loaded machine both inflate the gaps.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil

HERE = Path(__file__).resolve().parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(
    coalesce_ms: float, pace: str, schedule: str = "", repick: bool = True
) -> tuple[subprocess.Popen[bytes], int]:
    port = _free_port()
    env = {
        **os.environ,
        "PACED_ENGINE_MS": pace,
        "PACED_ENGINE_SCHEDULE": schedule,
        "PACED_ENGINE_RETUNE": "1" if repick else "0",
        "PACED_ENGINE_COALESCE_MS": str(coalesce_ms),
        "PYTHONPATH": os.pathsep.join([str(HERE.parent / "src"), os.environ.get("PYTHONPATH", "")]),
    }
    server = subprocess.Popen(
        [
            sys.executable, "-m", "uvicorn", "--factory", "paced_engine:app",
            "--app-dir", str(HERE), "--port", str(port), "--log-level", "warning",
        ],
        env=env,
    )  # fmt: skip
    for _ in range(600):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return server, port
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    server.kill()
    raise RuntimeError("server did not start")


async def one_stream(port: int, tokens: int) -> tuple[float, list[float], int]:
    """Time to the first chunk with text, the gaps after it, and the chunks with text."""
    body = json.dumps(
        {
            "model": "bench",
            "messages": [{"role": "user", "content": "Tell a long story."}],
            "max_tokens": tokens,
            "ignore_eos": True,
            "stream": True,
        }
    ).encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    began = time.perf_counter()
    writer.write(
        b"POST /v1/chat/completions HTTP/1.1\r\nhost: bench\r\ncontent-type: application/json\r\n"
        + f"content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode()
        + body
    )
    times: list[float] = []
    seen = b""
    while chunk := await reader.read(65536):
        now = time.perf_counter()
        # Events with text ("content":"..." not empty); the role chunk and [DONE] are not.
        seen += chunk
        events = seen.split(b"\n\n")
        seen = events.pop()
        times.extend(
            now for event in events if b'"content":"' in event and b'"content":""' not in event
        )
    writer.close()
    gaps = [b - a for a, b in itertools.pairwise(times)]
    return (times[0] - began if times else float("nan")), gaps, len(times)


async def round_(port: int, streams: int, tokens: int) -> list[tuple[float, list[float], int]]:
    return await asyncio.gather(*(one_stream(port, tokens) for _ in range(streams)))


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return (
        ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--coalesce-ms", type=float, nargs="+", default=[0, 20, 40, 50])
    parser.add_argument("--pace", default="5-10", help="ms per token per stream, a range")
    parser.add_argument(
        "--pace-schedule",
        default="",
        help="ms per token for equal parts of each stream (5,20,5); replaces --pace",
    )
    parser.add_argument(
        "--repick",
        nargs="+",
        choices=["on", "off"],
        default=["on"],
        help="re-pick a running stream's interval as its pace changes (off: keep the first)",
    )
    parser.add_argument("--streams", type=int, default=16)
    parser.add_argument("--tokens", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    rows = []
    for coalesce, repick in itertools.product(args.coalesce_ms, args.repick):
        server, port = start_server(coalesce, args.pace, args.pace_schedule, repick == "on")
        try:
            asyncio.run(round_(port, args.streams, args.tokens))  # warm-up: the pace is learnt
            process = psutil.Process(server.pid)
            cpu_before = sum(process.cpu_times()[:2])
            results = []
            for _ in range(args.rounds):
                results += asyncio.run(round_(port, args.streams, args.tokens))
            cpu = sum(process.cpu_times()[:2]) - cpu_before
        finally:
            server.terminate()
            server.wait(30)
        gaps = [gap for _, stream_gaps, _ in results for gap in stream_gaps]
        ttfts = [ttft for ttft, _, _ in results]
        chunks = statistics.mean(count for _, _, count in results)
        tokens = args.tokens * len(results)
        over_bound = sum(gap > coalesce / 1000 for gap in gaps) / len(gaps)
        over = f"{over_bound * 100:.1f}" if coalesce else "-"
        rows.append(
            f"| {coalesce:g} | {repick} | {chunks:.0f} | {over} | {pct(gaps, 0.5) * 1000:.1f} | "
            f"{pct(gaps, 0.99) * 1000:.1f} | {max(gaps) * 1000:.1f} | "
            f"{pct(ttfts, 0.5) * 1000:.1f} | {cpu / tokens * 1e6:.0f} |"
        )
        print(rows[-1], flush=True)
    pace = (
        f"a token every {args.pace} ms per stream"
        if not args.pace_schedule
        else f"ms per token in equal parts of each stream: {args.pace_schedule}"
    )
    print(
        f"\n{args.streams} concurrent chat streams x {args.tokens} tokens, {pace}, "
        f"{args.rounds} rounds per arm (after one warm-up round)"
    )
    print(
        "| --stream-coalesce-ms | re-pick | chunks per stream | gaps over the bound % | "
        "gap p50 ms | gap p99 ms | gap max ms | first chunk p50 ms | server CPU us/token |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
