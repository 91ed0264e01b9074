"""How long one hostile but legal request holds the event loop of a running server.

    python benchmarks/hostile_stall.py [--only NAME ...] [--timeout 120]

A real uvicorn server runs the app over an engine double with no latency (its answers are
fixed; a prompt that holds `BLANK-RUN` is answered with a run of blank lines, as a degenerate
model may). For each case, the worst input of its kind that stays within every limit the
server enforces (--max-text-chars, --max-texts, --max-body-bytes, the glossary's bounds) is
sent, while another connection asks `/health/live` every 5 ms: the longest of those answers
is how long everything else on the server waited ("/health ms"). The server also times every
callback of its event loop in CPU time of the loop's thread and reports the longest ("loop
turn ms"): the loop's own work, which a loaded machine does not inflate (it runs the asyncio
loop for that, not uvloop). Per case, medians over `--rounds` runs, the request's own time
and its status. The baseline (one short text) shows what the machine itself adds to the wall
times: on a loaded machine, threads wait for a core too.

The server is started with its default limits, from this checkout's `src` or `--src` (to
measure another version of the service with the same cases).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from hostile_cases import CASES
from hostile_server import TURNS_FILE

POLL_S = 0.005


class Poller:
    """Asks `/health/live` every `POLL_S` and notes how long each answer took; an answer still
    awaited when the poller stops counts as the time it has waited so far."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client
        self.waits: list[float] = []
        self.asked_at: float | None = None

    async def run(self) -> None:
        while True:
            self.asked_at = time.perf_counter()
            await self.client.get("/health/live")
            self.waits.append(time.perf_counter() - self.asked_at)
            self.asked_at = None
            await asyncio.sleep(POLL_S)

    def worst(self) -> float:
        pending = [time.perf_counter() - self.asked_at] if self.asked_at is not None else []
        return max(self.waits + pending)


async def measure(base: str, body: dict, timeout: float, server: subprocess.Popen) -> dict:
    payload = json.dumps(body).encode()
    async with (
        httpx.AsyncClient(base_url=base, timeout=None) as poll_client,
        httpx.AsyncClient(base_url=base, timeout=timeout) as sender,
    ):
        await poll_client.get("/health/live")
        # A first request warms what the first one pays for (imports, compiled patterns).
        await sender.post(
            "/translate", json={"text": "Warm up.", "source_lang": "en", "target_lang": "de"}
        )
        await sender.post(
            "/translate", json={"text": "<p>Warm up.</p>", "format": "html", "target_lang": "de"}
        )
        await asyncio.sleep(0.2)
        server.send_signal(signal.SIGUSR1)  # the longest loop turn counts from here
        await asyncio.sleep(0.1)
        poller = Poller(poll_client)
        polling = asyncio.create_task(poller.run())
        await asyncio.sleep(0.05)
        began = time.perf_counter()
        try:
            response = await sender.post(
                "/translate", content=payload, headers={"content-type": "application/json"}
            )
            status = str(response.status_code)
        except httpx.TimeoutException:
            status = "timeout"
        elapsed = time.perf_counter() - began
        await asyncio.sleep(0.05)
        worst = poller.worst()
        polling.cancel()
    return {
        "worst_ms": worst * 1e3,
        "request_s": elapsed,
        "status": status,
        "bytes": len(payload),
        "texts": len(body["text"]),
    }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start_server(src: Path, turns: Path) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = {
        **os.environ,
        TURNS_FILE: str(turns),
        "PYTHONPATH": os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")]),
    }
    # The asyncio loop rather than uvloop: its callbacks can be timed.
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "--factory",
            "hostile_server:app",
            "--app-dir",
            str(Path(__file__).parent),
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--loop",
            "asyncio",
        ],
        env=env,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(1200):
        try:
            if httpx.get(base + "/health", timeout=1).status_code == 200:
                return server, base
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    server.kill()
    raise RuntimeError("the server did not start")


async def main(args: argparse.Namespace) -> None:
    print(
        f"{'case':<42} {'texts':>5} {'KiB':>5} {'status':>7} {'request s':>9} "
        f"{'/health ms':>12} {'loop turn ms':>13}",
        flush=True,
    )
    for name, build in CASES.items():
        if args.only and not any(word in name for word in args.only):
            continue
        rounds = []
        for _ in range(args.rounds):
            # A server of its own per case: one still busy with a case must not delay the
            # next.
            with tempfile.TemporaryDirectory() as folder:
                turns = Path(folder) / "turns"
                server, base = _start_server(args.src, turns)
                try:
                    rounds.append(await measure(base, build(), args.timeout, server))
                    # A loop stuck in one turn has not reported it yet.
                    busy = rounds[-1]["status"] == "timeout"
                    rounds[-1]["turn_ms"] = float("inf") if busy else float(turns.read_text()) * 1e3
                finally:
                    server.kill()
                    server.wait()
            if rounds[-1]["status"] == "timeout":
                break
        result = {
            **rounds[0],
            **{
                key: statistics.median(r[key] for r in rounds)
                for key in ("worst_ms", "request_s", "turn_ms")
            },
        }
        print(
            f"{name:<42} {result['texts']:>5} {result['bytes'] // 1024:>5} "
            f"{result['status']:>7} {result['request_s']:>9.2f} "
            f"{result['worst_ms']:>12.1f} {result['turn_ms']:>13.1f}",
            flush=True,
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", nargs="*", help="run the cases whose name holds a word")
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="runs per case (a fresh server each); the medians are shown",
    )
    parser.add_argument(
        "--timeout", type=float, default=60.0, help="seconds to wait for one answer"
    )
    parser.add_argument(
        "--src",
        type=Path,
        default=Path(__file__).parents[1] / "src",
        help="the service's source folder to run",
    )
    asyncio.run(main(parser.parse_args()))
