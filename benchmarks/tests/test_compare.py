"""The comparison's arithmetic and the HTTP-layer apps, without any engine or subprocess."""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
from pathlib import Path

import pytest

from benchmarks import compare_arms, compare_runner
from benchmarks.compare_arms import CompareConfig
from benchmarks.compare_figures import measurement, service_overhead
from benchmarks.compare_runner import rotation
from benchmarks.compare_summary import format_comparison, medians, ratios
from benchmarks.http_layer_servers import find_bench_dir
from benchmarks.http_layer_summary import format_summary, summarize_rounds
from translate_server.cli import _parser
from translate_server.loadgen.stats import RequestResult, summarize
from translate_server.server import logging_setup
from translate_server.settings import load_settings

BENCH_DIR = Path(__file__).resolve().parents[1]


def test_rotation_alternates_order() -> None:
    units = ["engine", "service", "vllm"]
    assert [rotation(units, r)[0] for r in range(4)] == ["engine", "service", "vllm", "engine"]


def test_ratios_are_medians_of_per_round_ratios() -> None:
    rounds = [
        {"engine": {"output_tokens_per_s": 100.0}, "chat": {"output_tokens_per_s": 90.0}},
        {"engine": {"output_tokens_per_s": 200.0}, "chat": {"output_tokens_per_s": 160.0}},
        {"engine": {"output_tokens_per_s": 150.0}, "chat": {"output_tokens_per_s": 150.0}},
    ]
    r = ratios(rounds, "engine")
    assert r["chat"]["output_tokens_per_s"] == pytest.approx(0.9)
    assert r["engine"]["output_tokens_per_s"] == pytest.approx(1.0)
    m = medians(rounds)
    assert m["engine"]["output_tokens_per_s"] == 150.0 and m["chat"]["output_tokens_per_s"] == 150


def test_nan_and_missing_values_are_left_out() -> None:
    rounds = [
        {"engine": {"ttft_p50_ms": math.nan, "latency_p50_ms": 10.0}, "vllm": {"ttft_p50_ms": 5.0}},
        {"engine": {"ttft_p50_ms": 4.0, "latency_p50_ms": 20.0}, "vllm": {"ttft_p50_ms": 6.0}},
    ]
    r = ratios(rounds, "engine")
    assert r["vllm"] == {"ttft_p50_ms": pytest.approx(1.5)}
    assert medians(rounds)["engine"]["ttft_p50_ms"] == 4.0
    table = format_comparison(medians(rounds), r, ["engine", "vllm"], "engine")
    assert "(1.50x)" in table and table.splitlines()[0].split()[0] == "arm"


def test_the_first_arm_listed_is_the_baseline(monkeypatch, tmp_path: Path) -> None:
    speeds = {"engine": 10.0, "translate": 20.0, "chat": 30.0, "vllm": 40.0}

    def figures(arm: str) -> dict[str, float]:
        return {
            "output_tokens_per_s": speeds[arm],
            "requests_per_s": 1.0,
            "latency_p95_ms": 1.0,
            "errors": 0,
        }

    monkeypatch.setattr(compare_runner, "run_engine_arm", lambda cfg, r: figures("engine"))
    monkeypatch.setattr(compare_runner, "run_vllm_arm", lambda cfg, r, items: figures("vllm"))
    monkeypatch.setattr(compare_runner, "run_service_arm", lambda cfg, arm, r, items: figures(arm))
    cfg = CompareConfig(
        model="m",
        arms=["vllm", "translate", "engine"],
        rounds=2,
        concurrency=1,
        requests=1,
        warmup=0,
        stream=True,
        max_num_seqs=1,
        max_model_len=64,
        dtype="float32",
        max_num_batched_tokens=None,
        workload_argv=[],
        out_dir=tmp_path,
        startup_timeout_s=1,
    )
    result = compare_runner.run_comparison(cfg, [], log=lambda line: None)
    assert result["baseline"] == "vllm" and result["arms"] == ["vllm", "translate", "engine"]
    assert result["ratios"]["translate"]["output_tokens_per_s"] == 0.5


def test_each_route_of_the_service_gets_a_server_of_its_own(monkeypatch, tmp_path: Path) -> None:
    # Measured one after the other on one server, the second route would find the first's
    # prompts in vLLM's prefix cache and skip their prefill.
    started: list[tuple[str, list[str]]] = []

    class FakeServer:
        def __init__(self, command: list[str], port: int, log_path: Path) -> None:
            self.command, self.log_path, self.base_url = command, log_path, f"http://h:{port}"

        def start(self, timeout_s: float) -> None:
            started.append((self.log_path.name, []))

        def stop(self) -> None:
            pass

    async def measure(server, target, cfg, items, routes) -> dict[str, float]:
        started[-1][1].extend(routes)
        return {
            "output_tokens_per_s": 1.0,
            "requests_per_s": 1.0,
            "latency_p95_ms": 1.0,
            "errors": 0,
        }

    monkeypatch.setattr(compare_runner, "Server", FakeServer)
    monkeypatch.setattr(compare_runner, "_measure_http", measure)
    cfg = CompareConfig(
        model="m",
        arms=["translate", "chat"],
        rounds=2,
        concurrency=1,
        requests=1,
        warmup=0,
        stream=True,
        max_num_seqs=1,
        max_model_len=64,
        dtype="float32",
        max_num_batched_tokens=None,
        workload_argv=[],
        out_dir=tmp_path,
        startup_timeout_s=1,
    )
    result = compare_runner.run_comparison(cfg, [], log=lambda line: None)
    assert started == [
        ("translate-round0.log", ["/translate"]),
        ("chat-round0.log", ["/v1/chat/completions"]),
        ("chat-round1.log", ["/v1/chat/completions"]),
        ("translate-round1.log", ["/translate"]),
    ]
    assert set(result["rounds"][1]) == {"translate", "chat"}


@pytest.mark.parametrize("engine_metrics", [True, False])
def test_every_arm_runs_the_engine_with_the_same_statistics(
    tmp_path: Path, engine_metrics: bool
) -> None:
    # vLLM's statistics cost the serving process CPU on every step: a baseline without them
    # would charge the service for work the baseline skips.
    cfg = CompareConfig(
        model="m",
        arms=["engine", "chat", "vllm"],
        rounds=1,
        concurrency=1,
        requests=1,
        warmup=0,
        stream=True,
        max_num_seqs=1,
        max_model_len=64,
        dtype="float32",
        max_num_batched_tokens=None,
        workload_argv=[],
        out_dir=tmp_path,
        startup_timeout_s=1,
        engine_metrics=engine_metrics,
    )
    engine_arm = compare_arms.engine_arm_command(cfg, tmp_path / "engine.json")
    service = compare_arms.service_command(cfg, 8000)
    vllm = compare_arms.vllm_command(cfg, 8000)
    assert ("--disable-log-stats" in engine_arm) is not engine_metrics
    assert ("--disable-log-stats" in vllm) is not engine_metrics
    serve_args = _parser().parse_args(service[service.index("serve") :])
    assert load_settings(vars(serve_args), environ={}).engine.engine_metrics is engine_metrics


def test_measurement_turns_cpu_seconds_into_ms_per_thousand_tokens() -> None:
    results = [RequestResult(True, 200, 0.0, 1.0, 0.1, 5, 500, True)] * 4
    stats = summarize(results, mode="closed", concurrency=4, duration_s=2.0)
    figures = measurement(stats, {"front_cpu_s": 0.5, "tree_cpu_s": 3.0})
    assert figures["output_tokens_per_s"] == 1000.0
    assert figures["front_cpu_ms_per_1k_tokens"] == pytest.approx(250.0)  # 0.5 s / 2k tokens
    assert figures["tree_cpu_ms_per_1k_tokens"] == pytest.approx(1500.0)
    assert figures["ttft_p50_ms"] == pytest.approx(100.0)


def test_service_overhead_reads_the_request_log() -> None:
    lines = [
        json.dumps(
            {
                "event": "request",
                "route": "/translate",
                "status": 200,
                "total_ms": 110.0,
                "engine_ms": 100.0,
            }
        ),
        json.dumps(
            {
                "event": "request",
                "route": "/translate",
                "status": 200,
                "total_ms": 52.0,
                "engine_ms": 50.0,
            }
        ),
        json.dumps(
            {
                "event": "request",
                "route": "/translate",
                "status": 503,
                "total_ms": 1.0,
                "engine_ms": 0.0,
            }
        ),
        json.dumps(
            {
                "event": "request",
                "route": "/v1/chat/completions",
                "status": 200,
                "total_ms": 9.0,
                "engine_ms": 1.0,
            }
        ),
        "INFO: not json",
        "{broken",
    ]
    figures = service_overhead("\n".join(lines), ["/translate"])
    assert figures["service_overhead_requests"] == 2
    assert figures["service_overhead_p50_ms"] == pytest.approx(6.0)
    assert service_overhead("", ["/translate"]) == {}


def test_http_layer_summary() -> None:
    rounds = [
        {
            "litestar translate": {
                "requests_per_s": 200.0,
                "server_cpu_us_per_request": 100.0,
                "latency_p50_ms": 1.0,
                "latency_p99_ms": 2.0,
                "errors": 0,
            },
            "fastapi translate": {
                "requests_per_s": 100.0,
                "server_cpu_us_per_request": 250.0,
                "latency_p50_ms": 2.0,
                "latency_p99_ms": 4.0,
                "errors": 0,
            },
        },
    ]
    summary = summarize_rounds(rounds, ["translate"])
    assert summary["ratios"]["translate"] == {"requests_per_s": 2.0, "cpu_per_request": 2.5}
    assert "2.00x" in format_summary(summary)


def test_http_layer_summary_measures_each_app_above_the_floor() -> None:
    def arm(cpu: float, per_token: float) -> dict[str, float]:
        return {
            "requests_per_s": 1e6 / cpu,
            "server_cpu_us_per_request": cpu,
            "latency_p50_ms": 1.0,
            "latency_p99_ms": 2.0,
            "errors": 0,
            "server_cpu_us_per_token": per_token,
        }

    rounds = [
        {
            "litestar chat-stream": arm(2000.0, 31.25),
            "fastapi chat-stream": arm(3000.0, 46.9),
            "floor chat-stream": arm(800.0, 12.5),
        },
        {
            "litestar chat-stream": arm(2200.0, 34.4),
            "fastapi chat-stream": arm(3400.0, 53.1),
            "floor chat-stream": arm(1000.0, 15.6),
        },
    ]
    summary = summarize_rounds(rounds, ["chat-stream"])
    ratios = summary["ratios"]["chat-stream"]
    assert ratios["litestar_above_floor_us"] == pytest.approx(1200.0)
    assert ratios["fastapi_above_floor_us"] == pytest.approx(2300.0)
    floor_stream = summary["medians"]["floor chat-stream"]
    assert floor_stream["server_cpu_us_per_token"] == pytest.approx(14.05)
    text = format_summary(summary)
    assert "Litestar 1,200 us, FastAPI 2,300 us per request" in text
    assert "14.1" in text  # the floor's CPU per token, in its row


def test_http_layer_summary_prices_tracing_without_fastapi() -> None:
    def arm(cpu: float) -> dict[str, float]:
        return {
            "requests_per_s": 1e6 / cpu,
            "server_cpu_us_per_request": cpu,
            "latency_p50_ms": 1.0,
            "latency_p99_ms": 2.0,
            "errors": 0,
        }

    rounds = [
        {
            "litestar translate": arm(300.0),
            "traced translate": arm(700.0),
            "otel-asgi translate": arm(900.0),
        },
        {
            "litestar translate": arm(320.0),
            "traced translate": arm(760.0),
            "otel-asgi translate": arm(860.0),
        },
    ]
    ratios = summarize_rounds(rounds, ["translate"])["ratios"]["translate"]
    assert ratios == {
        "traced_extra_us": pytest.approx(420.0),
        "otel-asgi_extra_us": pytest.approx(570.0),
    }
    text = format_summary(summarize_rounds(rounds, ["translate"]))
    assert "translate: traced adds 420 us CPU per request; otel-asgi adds 570 us" in text


def test_http_layer_prices_routes_against_each_other() -> None:
    """A short string's /translate against chat's, and a list of 50 against one string,
    round by round."""

    def arm(cpu: float) -> dict[str, float]:
        return {
            "requests_per_s": 1e6 / cpu,
            "server_cpu_us_per_request": cpu,
            "latency_p50_ms": 1.0,
            "latency_p99_ms": 2.0,
            "errors": 0,
        }

    rounds = [
        {
            "litestar translate-short": arm(400.0),
            "litestar chat-short": arm(200.0),
            "litestar translate-50": arm(2400.0),
        },
        {
            "litestar translate-short": arm(600.0),
            "litestar chat-short": arm(200.0),
            "litestar translate-50": arm(3000.0),
        },
    ]
    apis = ["translate-short", "chat-short", "translate-50"]
    ratios = summarize_rounds(rounds, apis)["ratios"]
    assert ratios["translate-short"]["litestar_cpu_vs_chat-short"] == pytest.approx(2.5)
    assert ratios["translate-50"]["litestar_cpu_vs_translate-short"] == pytest.approx(5.5)
    assert "litestar uses 2.50x its chat-short's CPU" in format_summary(
        summarize_rounds(rounds, apis)
    )


def test_http_layer_short_strings() -> None:
    """Short strings: a text's sentences or eight words at a time, and lists of 50 distinct
    ones of one language pair, each item's own string first."""
    from benchmarks.http_layer import LIST_TEXTS, short_item, short_strings, text_lists
    from translate_server.loadgen.workload import WorkloadSpec, make_workload

    assert short_strings(
        "Where is it? The train leaves at nine from platform four today, late."
    ) == [
        "Where is it?",
        "The train leaves at nine from platform four.",
        "today, late.",
    ]
    items = make_workload(WorkloadSpec(size=60))
    lists = text_lists(items)
    for item in items:
        texts = lists[item.index]
        assert len(set(texts)) == len(texts) == LIST_TEXTS
        assert texts[0] == short_item(item).text


def test_traced_apps_serve(bench_modules, monkeypatch) -> None:
    """Both tracing arms build and answer, exporting to a sink."""
    from litestar.testing import TestClient

    from benchmarks.http_layer_servers import SpanSink

    sink = SpanSink()
    monkeypatch.setenv("BENCH_OTLP_TRACES_ENDPOINT", sink.url)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf")
    try:
        import apps

        for factory in (apps.litestar_traced_app, apps.litestar_otel_asgi_app):
            with TestClient(factory()) as client:
                response = client.post(
                    "/translate",
                    json={"text": "Good morning", "source_lang": "en", "target_lang": "de"},
                )
                assert response.status_code == 200
    finally:
        sink.close()


def test_bench_dir_is_found_in_the_checkout() -> None:
    assert find_bench_dir(str(BENCH_DIR)) == BENCH_DIR
    with pytest.raises(FileNotFoundError):
        find_bench_dir(str(BENCH_DIR / "missing"))


@pytest.fixture
def bench_modules(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH_DIR))
    # The apps set up a server process's logging (`configure_logging`); in pytest's process that
    # would outlive the test: structlog caches each logger first used under it, and later tests'
    # `capture_logs` would see none of those loggers' lines.
    monkeypatch.setattr(logging_setup, "configure_logging", lambda *args, **kwargs: None)
    yield
    for name in ("apps", "asgi_floor", "fastapi_app", "zero_engine"):
        sys.modules.pop(name, None)


def _lifespan(app):
    inner = getattr(app, "app", None)  # the FastAPI app sits inside the request observer
    if inner is not None and hasattr(inner.router, "lifespan_context"):
        return inner.router.lifespan_context(inner)
    if hasattr(app, "lifespan"):
        return app.lifespan()
    return contextlib.nullcontext()  # the bare floor has nothing to start


async def test_both_http_layer_apps_answer_alike(bench_modules) -> None:
    """The two apps compared must do the same work: same answers to the same requests."""
    httpx = pytest.importorskip("httpx")
    pytest.importorskip("fastapi")
    from translate_server.app import create_app

    from apps import SERVED_NAME, settings
    from fastapi_app import create_fastapi_app
    from zero_engine import ZeroLatencyEngine

    translate = {"text": "Where is the station?", "source_lang": "en", "target_lang": "de"}
    chat = {"model": SERVED_NAME, "messages": [{"role": "user", "content": "Hallo"}]}
    answers = []
    for factory in (create_app, create_fastapi_app):
        app = factory(settings(), lambda: ZeroLatencyEngine(model=SERVED_NAME))
        async with _lifespan(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                t = (await client.post("/translate", json=translate)).json()
                c = (await client.post("/v1/chat/completions", json=chat)).json()
                bad = await client.post("/translate", json={"text": "x", "source_lang": "en"})
        c.pop("id"), c.pop("created")
        answers.append((t, c, bad.status_code, bad.json()["error"]["param"]))
    assert answers[0] == answers[1]
    # The double's answer to a text: as long as the text, a token per four characters.
    translation = answers[0][0]["translation"]
    assert answers[0][0]["usage"]["completion_tokens"] == len(translation) // 4 + 1
    assert abs(len(translation) - len(translate["text"])) <= 16  # within a word


def _events(text: str) -> list[dict]:
    events = [e[len("data: ") :] for e in text.split("\n\n") if e]
    assert events[-1] == "[DONE]"
    return [json.loads(e) for e in events[:-1]]


async def test_all_http_layer_apps_stream_the_same_events(bench_modules) -> None:
    """Asked for exactly N tokens, the service (its streams not coalesced, as the FastAPI
    app's are not), the FastAPI app and the bare floor all stream N content events of the same
    shape, then the usage."""
    httpx = pytest.importorskip("httpx")
    pytest.importorskip("fastapi")
    from translate_server.app import create_app

    from apps import SERVED_NAME, floor_app, settings
    from fastapi_app import create_fastapi_app
    from zero_engine import ZeroLatencyEngine

    body = {
        "model": SERVED_NAME,
        "messages": [{"role": "user", "content": "Hallo"}],
        "max_tokens": 5,
        "ignore_eos": True,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    shapes = []
    for make in (
        lambda: create_app(
            settings(stream_coalesce_ms=0), lambda: ZeroLatencyEngine(model=SERVED_NAME)
        ),
        lambda: create_fastapi_app(settings(), lambda: ZeroLatencyEngine(model=SERVED_NAME)),
        floor_app,
    ):
        app = make()
        async with _lifespan(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                response = await client.post("/v1/chat/completions", json=body)
        events = _events(response.text)
        content = [e for e in events if e["choices"] and e["choices"][0]["delta"].get("content")]
        assert len(content) == 5
        assert all(e["object"] == "chat.completion.chunk" for e in events)
        assert events[-1]["usage"]["completion_tokens"] == 5
        shapes.append(sorted(content[0]["choices"][0]))
    assert shapes[0] == shapes[1] == shapes[2]


def test_http_layer_summary_sets_a_checkout_against_its_baseline() -> None:
    def arm(cpu: float) -> dict[str, float]:
        return {
            "requests_per_s": 1e6 / cpu,
            "server_cpu_us_per_request": cpu,
            "latency_p50_ms": 1.0,
            "latency_p99_ms": 2.0,
            "errors": 0,
        }

    rounds = [
        {"litestar chat-stream": arm(900.0), "baseline chat-stream": arm(1000.0)},
        {"litestar chat-stream": arm(1100.0), "baseline chat-stream": arm(1000.0)},
        {"litestar chat-stream": arm(1900.0), "baseline chat-stream": arm(2000.0)},
    ]
    summary = summarize_rounds(rounds, ["chat-stream"])
    # The median of the per-round ratios (0.9, 1.1, 0.95), not the ratio of the medians.
    assert summary["ratios"]["chat-stream"] == {"cpu_vs_baseline": pytest.approx(0.95)}
    text = format_summary(summary)
    assert "chat-stream: Litestar uses 0.95x the baseline's server CPU per request" in text
    assert "baseline chat-stream" in text  # its own row of medians


def test_the_baseline_arm_runs_the_other_checkout(tmp_path, monkeypatch) -> None:
    from benchmarks import http_layer_servers

    started = []
    monkeypatch.setattr(
        http_layer_servers.subprocess, "Popen", lambda command, **kw: started.append((command, kw))
    )
    monkeypatch.setenv("PYTHONPATH", "/this/src")
    other = tmp_path / "other"
    http_layer_servers.start_app("baseline", tmp_path / "ours", 1, None, baseline=other)
    http_layer_servers.start_app("litestar", tmp_path / "ours", 2, None, baseline=other)
    (theirs, their_kw), (ours, our_kw) = started
    assert theirs[theirs.index("--app-dir") + 1] == str(other / "benchmarks")
    assert their_kw["env"]["PYTHONPATH"] == f"{other / 'src'}{os.pathsep}/this/src"
    assert ours[ours.index("--app-dir") + 1] == str(tmp_path / "ours")
    assert our_kw["env"]["PYTHONPATH"] == "/this/src"
    with pytest.raises(ValueError, match="--baseline"):
        http_layer_servers.start_app("baseline", tmp_path / "ours", 3, None)
