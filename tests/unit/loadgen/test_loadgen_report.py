"""Sweep output: the table, the JSON document, the plot, and `bench run` end to end."""

from __future__ import annotations

import asyncio
import json
import math
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web

from translate_server.bench import main
from translate_server.loadgen.report import build_document, format_table, load_json, write_json
from translate_server.loadgen.stats import RequestResult, summarize


def _levels():
    fast = [
        RequestResult(True, 200, 0.0, 0.1, 0.02, 10, 20, True),
        RequestResult(True, 200, 0.1, 0.1, 0.03, 10, 20, True),
    ]
    slow = [*fast, RequestResult(False, 503, 0.0, 0.0, error="HTTP 503: full")]
    return [
        summarize(fast, mode="closed", concurrency=1),
        summarize(slow, mode="closed", concurrency=8),
        summarize(fast[:1], mode="open", rate=2.5, duration_s=1.0),
    ]


def test_table_has_one_row_per_level_and_lists_errors() -> None:
    table = format_table(_levels())
    lines = table.splitlines()
    assert "req/s" in lines[0] and "ttft p95" in lines[0]
    assert [line.split()[0] for line in lines[2:5]] == ["c=1", "c=8", "r=2.5/s"]
    assert lines[-1] == "errors: HTTP 503 x1"


def test_json_round_trip_turns_nan_into_null(tmp_path: Path) -> None:
    levels = _levels()
    levels[0].latency_ms["p99"] = math.nan
    path = tmp_path / "out.json"
    write_json(path, build_document({"api": "translate"}, levels))
    doc = load_json(path)
    assert doc["schema"] == 1 and doc["run"] == {"api": "translate"}
    assert doc["levels"][0]["latency_ms"]["p99"] is None
    assert doc["levels"][1]["errors"] == 1 and doc["levels"][2]["rate"] == 2.5
    assert json.loads(path.read_text())  # plain JSON for any reader


def test_plot_writes_a_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from translate_server.loadgen.report import plot

    path = tmp_path / "sweep.png"
    plot(_levels(), path, title="test")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def translate_server_url() -> Iterator[str]:
    """A /translate stand-in on its own thread and loop (the CLI runs its own loop)."""

    async def translate(request: web.Request) -> web.Response:
        body = await request.json()
        usage = {"prompt_tokens": 4, "completion_tokens": 6, "total_tokens": 10}
        return web.json_response({"translation": body["text"][::-1], "usage": usage})

    ready = threading.Event()
    state: dict = {}

    def run() -> None:
        loop = asyncio.new_event_loop()
        app = web.Application()
        app.router.add_post("/translate", translate)
        runner = web.AppRunner(app)
        loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", 0)
        loop.run_until_complete(site.start())
        state.update(loop=loop, runner=runner, port=runner.addresses[0][1])
        ready.set()
        loop.run_forever()
        loop.run_until_complete(runner.cleanup())
        loop.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    ready.wait(5)
    yield f"http://127.0.0.1:{state['port']}"
    state["loop"].call_soon_threadsafe(state["loop"].stop)
    thread.join(5)


def test_bench_run_end_to_end(translate_server_url: str, tmp_path: Path, capsys) -> None:
    out = tmp_path / "run.json"
    code = main(
        [
            "run",
            "--base-url",
            translate_server_url,
            "--concurrency",
            "1,3",
            "--requests",
            "6",
            "--warmup",
            "1",
            "--workload",
            "uniform",
            "--json",
            str(out),
            "--no-progress",
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "c=1" in printed and "c=3" in printed
    doc = load_json(out)
    assert [level["concurrency"] for level in doc["levels"]] == [1, 3]
    assert all(level["ok"] == 6 and level["output_tokens"] == 36 for level in doc["levels"])
    assert doc["run"]["workload"]["kind"] == "uniform"
    assert doc["run"]["path"] == "/translate"


def test_bench_run_rejects_bad_levels(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--concurrency", "0,4"])
    assert "positive" in capsys.readouterr().err
