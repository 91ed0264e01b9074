"""`serve --api-processes 2` on the tiny model: two front-end processes over one engine core.
Overload is counted once for both, a client that leaves frees the engine whichever process
it reached, /metrics sums both, and SIGTERM drains both. One server for the module, and the
last test drains it. Run under `flock /tmp/engine.lock`."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.harness import eventually, eventually_sync, read_until
from tests.support.server_process import ServerProcess, start
from tests.support.tiny_model import tiny_model_dir

REPO_ROOT = Path(__file__).resolve().parents[2]
SLOTS, QUEUE = 2, 2
# Long enough that a burst arrives while the first requests still decode (about 1-2 s).
LONG = {
    "model": "tiny",
    "messages": [{"role": "user", "content": "Tell me a story."}],
    "max_tokens": 400,
    "min_tokens": 400,
    "seed": 1,
}


def serve_args(tmp: Path, *extra: str) -> list[str]:
    model = tiny_model_dir(REPO_ROOT / ".cache" / "test-models")
    return [
        "--model", str(model),
        "--served-model-name", "tiny",
        "--max-model-len", "512",
        "--no-quality-guard",
        "--log-format", "json",
        "--model-cache-dir", str(tmp / "cache"),
        "--document-dir", str(tmp / "documents"),
        "--api-processes", "2",
        *extra,
    ]  # fmt: skip


def start_both(args: list[str], log_path: Path) -> ServerProcess:
    """The server, once BOTH front ends serve (/health answers as soon as one does)."""
    server = start(args, log_path, timeout=300)
    eventually_sync(
        lambda: (
            {line.get("front_end") for line in log_lines(server, "startup_heap_frozen")} == {0, 1}
        ),
        timeout=120,
        every=0.2,
        failure=server.output,
    )
    return server


def log_lines(server: ServerProcess, event: str) -> list[dict[str, object]]:
    """The server's JSON log lines of `event` (a line may follow other output unbroken)."""
    marker = f'"event":"{event}"'
    return [
        json.loads(line[line.index("{") :])
        for line in server.output().splitlines()
        if "{" in line and marker in line.replace(" ", "")
    ]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    tmp = tmp_path_factory.mktemp("api-processes")
    args = ["--max-num-seqs", str(SLOTS), "--max-queued-requests", str(QUEUE)]
    process = start_both(serve_args(tmp, *args), tmp / "server.log")
    yield process
    process.stop()


def request_lines(server: ServerProcess) -> list[dict[str, object]]:
    return log_lines(server, "request")


def metric(text: str, name: str, labels: str = "") -> float:
    found = re.search(rf"^{re.escape(name + labels)} (\S+)$", text, re.MULTILINE)
    return float(found.group(1)) if found else 0.0


async def until_metric(client: httpx.AsyncClient, name: str, labels: str, value: float) -> None:
    await read_until(
        lambda: client.get("/metrics"),
        lambda response: metric(response.text, name, labels) == value,
        timeout=30,
        every=0.05,
    )


async def burst(base: str, count: int) -> list[httpx.Response]:
    """`count` requests at once, each on a connection of its own."""

    async def one() -> httpx.Response:
        async with httpx.AsyncClient(base_url=base, timeout=120) as client:
            return await client.post("/v1/chat/completions", json=LONG)

    return list(await asyncio.gather(*(one() for _ in range(count))))


async def test_overload_is_counted_once_for_both_processes(server: ServerProcess) -> None:
    """Slow as the module's first test: it waits for the server with two front ends, whose
    settings no other module shares, to start (30-90 s)."""
    answers = await burst(server.base_url, 12)
    statuses = Counter(a.status_code for a in answers)
    # Each process alone would admit SLOTS + QUEUE: together they admit that many, once.
    assert statuses == {200: SLOTS + QUEUE, 503: 12 - SLOTS - QUEUE}, statuses
    for refused in (a for a in answers if a.status_code == 503):
        assert refused.json()["error"]["code"] == "overloaded"
        assert float(refused.headers["retry-after"]) >= 1


async def test_a_client_that_leaves_frees_the_engine(server: ServerProcess) -> None:
    streams = []
    clients = [httpx.AsyncClient(base_url=server.base_url, timeout=60) for _ in range(4)]
    try:
        for client in clients:
            request = client.build_request(
                "POST", "/v1/chat/completions", json={**LONG, "stream": True}
            )
            response = await client.send(request, stream=True)
            assert response.status_code == 200
            await anext(response.aiter_lines())  # the first event: the stream is running
            streams.append(response)
        for client in clients:
            await client.aclose()  # every connection closed mid-stream
    finally:
        for client in clients:
            await client.aclose()
    async with httpx.AsyncClient(base_url=server.base_url, timeout=60) as client:
        # Long before the streams would have ended (400 tokens each), the engine is idle.
        await until_metric(client, "vllm:num_requests_running", '{engine="0",model_name="tiny"}', 0)
        await until_metric(client, "translate_requests_running", "", 0)
        answers = await burst(server.base_url, SLOTS + QUEUE)
        assert [a.status_code for a in answers] == [200] * (SLOTS + QUEUE)


async def test_metrics_and_log_lines_cover_both_processes(server: ServerProcess) -> None:
    answers = await burst(server.base_url, 4)
    assert all(a.status_code == 200 for a in answers)
    served = [line for line in request_lines(server) if line["route"] == "/v1/chat/completions"]
    by_process = Counter(line["front_end"] for line in served)
    assert set(by_process) == {0, 1}, by_process
    async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as client:
        text = (await client.get("/metrics")).text
    for status in (200, 503):
        logged = sum(1 for line in served if line["status"] == status)
        labels = f'{{route="/v1/chat/completions",status="{status}"}}'
        assert metric(text, "translate_requests_total", labels) == logged


async def test_the_stores_answer_the_same_whichever_process_is_reached(
    server: ServerProcess,
) -> None:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as client:
        created = await client.post("/memories", json={"name": "shop"})
        assert created.status_code == 201
    memory = created.json()["id"]
    for _ in range(8):  # a new connection each time: either process may take it
        async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as client:
            found = await client.get(f"/memories/{memory}")
            assert found.status_code == 200
    # Every /memories request was answered (and logged) by the process that owns the store.
    owners = {line["front_end"] for line in request_lines(server) if line["route"] == "/memories"}
    assert owners == {0}


def descendants_of(pid: int) -> set[int]:
    found = children_of(pid)
    for child in list(found):
        found |= descendants_of(child)
    return found


def thread_cores(pid: int) -> dict[int, frozenset[int]]:
    """Each thread's allowed cores (a thread that ended meanwhile is left out)."""
    cores = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            cores[int(task)] = frozenset(os.sched_getaffinity(int(task)))
        except ProcessLookupError:
            continue
    return cores


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="placement needs two cores")
def test_every_front_end_has_a_core_the_engine_does_not_use(server: ServerProcess) -> None:
    # `--cpu-placement split`, the default: every front end on the last core, the shared
    # engine core and its worker (compute threads bound by vLLM) on the others.
    placed = log_lines(server, "cpu_placement")
    assert placed, server.output()[-3000:]
    if "skipped" in placed[0]:
        pytest.skip(f"placement skipped here: {placed[0]['skipped']}")
    front_end = frozenset({max(os.sched_getaffinity(0))})
    front_ends = {int(str(line["pid"])) for line in log_lines(server, "front_end_starting")}
    assert len(front_ends) == 2
    for pid in front_ends:
        assert set(thread_cores(pid).values()) == {front_end}, pid
    # Everything else the supervisor started, but the front ends' own children and
    # multiprocessing's resource tracker (it predates the placement and waits on a pipe).
    theirs = set().union(*(descendants_of(pid) for pid in front_ends))
    engine = {
        pid
        for pid in descendants_of(server.process.pid) - front_ends - theirs
        if "resource_tracker" not in Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
    }
    assert engine, "no engine core process found"
    engine_threads = {tid: cores for pid in engine for tid, cores in thread_cores(pid).items()}
    assert all(cores.isdisjoint(front_end) for cores in engine_threads.values()), engine_threads


def children_of(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry))
    return found


async def test_sigterm_drains_every_process(server: ServerProcess) -> None:
    """Last in this module: it drains and stops the module's server (a server of its own would
    cost another start of an engine and two front ends, 30-80 s). Every request it admitted,
    those running and those queued behind them, is answered before it exits."""
    admitted = SLOTS + QUEUE
    try:
        children = children_of(server.process.pid)
        assert len(children) >= 3  # two front ends and the engine core
        async with httpx.AsyncClient(base_url=server.base_url, timeout=120) as client:
            accepted = asyncio.ensure_future(burst(server.base_url, admitted))
            route = '{route="/v1/chat/completions"}'
            await until_metric(client, "translate_requests_in_flight", route, admitted)
            server.process.send_signal(signal.SIGTERM)
            await read_until(
                lambda: client.get("/health"),
                lambda health: health.status_code == 503,
                timeout=20,
                every=0.05,
            )
            late = await client.post("/v1/chat/completions", json=LONG)
            assert late.status_code == 503
            assert late.json()["error"]["code"] == "shutting_down"
            answers = await accepted
        assert [a.status_code for a in answers] == [200] * admitted
        assert all(a.json()["usage"]["completion_tokens"] == 400 for a in answers)
        assert server.process.wait(timeout=90) == 0
        assert {line.get("front_end") for line in log_lines(server, "draining")} == {0, 1}
        # The engine core, its worker, the front ends: none outlives the server.
        await eventually(
            lambda: not any(Path(f"/proc/{pid}").exists() for pid in children),
            timeout=10,
            every=0.1,
        )
    finally:
        server.stop()
