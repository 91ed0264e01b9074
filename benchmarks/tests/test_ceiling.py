"""`bench ceiling`: the zero-latency double's coalesced outputs, the floor that streams as the
coalescing service does, and the arithmetic that turns CPU per unit into one core's ceiling."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

import pytest

from benchmarks.ceiling import format_ceiling, one_core_figures, real_engine_figures
from translate_server.server import logging_setup

BENCH_DIR = Path(__file__).resolve().parents[1]


@pytest.fixture
def bench_modules(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH_DIR))
    # The apps set up a server process's logging (`configure_logging`); in pytest's process that
    # would outlive the test: structlog caches each logger first used under it, and later tests'
    # `capture_logs` would see none of those loggers' lines.
    monkeypatch.setattr(logging_setup, "configure_logging", lambda *args, **kwargs: None)
    yield
    for name in ("apps", "asgi_floor", "fastapi_app", "litestar_floor", "zero_engine"):
        sys.modules.pop(name, None)


async def _outputs(engine, tokens: int, interval: int) -> list:
    from translate_server.inference.engine import SamplingOptions

    options = SamplingOptions(max_tokens=tokens, ignore_eos=True, stream_interval=interval)
    return [o async for o in engine.generate([0, 0], options, "r")]


@pytest.mark.parametrize(
    ("interval", "counts"),
    [(1, list(range(1, 11))), (4, [1, 5, 9, 10]), (16, [1, 10]), (0, list(range(1, 11)))],
)
async def test_zero_latency_engine_honours_the_stream_interval(
    bench_modules, interval: int, counts: list[int]
) -> None:
    """As vLLM sends them: the first output at once, then one per N tokens, the last at once;
    no text lost."""
    from zero_engine import TOKEN, ZeroLatencyEngine

    outputs = await _outputs(ZeroLatencyEngine(), 10, interval)
    assert [o.steps[0].completion_tokens for o in outputs] == counts
    assert "".join(o.steps[0].text for o in outputs) == TOKEN * 10
    assert [o.finished for o in outputs] == [False] * (len(counts) - 1) + [True]
    assert outputs[-1].steps[0].finish_reason == "length"


def _content(text: str) -> list[str]:
    events = [e[len("data: ") :] for e in text.split("\n\n") if e]
    assert events[-1] == "[DONE]"
    parsed = [json.loads(e) for e in events[:-1]]
    return [
        e["choices"][0]["delta"]["content"]
        for e in parsed
        if e["choices"] and e["choices"][0]["delta"].get("content")
    ]


def _stream_body(tokens: int) -> dict:
    return {
        "model": "bench-model",
        "messages": [{"role": "user", "content": "Hallo"}],
        "max_tokens": tokens,
        "ignore_eos": True,
        "stream": True,
        "stream_options": {"include_usage": True},
    }


async def _stream(app, tokens: int, times: int = 1) -> list[list[str]]:
    httpx = pytest.importorskip("httpx")
    lifespan = app.lifespan() if hasattr(app, "lifespan") else contextlib.nullcontext()
    answers = []
    async with lifespan:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            for _ in range(times):
                response = await client.post("/v1/chat/completions", json=_stream_body(tokens))
                answers.append(_content(response.text))
    return answers


async def test_the_coalesced_floor_streams_n_tokens_per_event(bench_modules) -> None:
    from asgi_floor import coalesced

    (content,) = await _stream(coalesced(4), 10)
    assert [c.count("Wort") for c in content] == [1, 4, 4, 1]


async def test_the_litestar_floor_answers_as_the_bare_floor_does(bench_modules) -> None:
    """The framework's floor serves the same bodies as the bare one: only Litestar differs."""
    httpx = pytest.importorskip("httpx")
    from litestar_floor import create

    from asgi_floor import app as bare
    from asgi_floor import coalesced

    framework = create()
    (streamed,) = await _stream(framework, 40)
    assert streamed == (await _stream(coalesced(16), 40))[0]
    translate = {"text": "Hello.", "source_lang": "en", "target_lang": "de"}
    chat = {k: v for k, v in _stream_body(8).items() if k != "stream"}
    answers = []
    for app in (framework, bare):
        lifespan = app.lifespan() if hasattr(app, "lifespan") else contextlib.nullcontext()
        async with lifespan:
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                answers.append(
                    [
                        (r.status_code, r.json())
                        for r in (
                            await client.post("/translate", json=translate),
                            await client.post("/v1/chat/completions", json=chat),
                            await client.get("/v1/models"),
                        )
                    ]
                )
                streamed = await client.post("/v1/chat/completions", json=_stream_body(4))
                assert streamed.headers["content-type"].startswith("text/event-stream")
    assert answers[0] == answers[1]
    assert [status for status, _ in answers[0]] == [200, 200, 200]


async def test_the_service_coalesces_the_zero_latency_engine_at_the_largest_interval(
    bench_modules,
) -> None:
    """The service streams the first answer token by token until it has timed the engine (no
    pace known yet: two outputs), then asks for the largest interval; later answers start with
    it. Off, every answer is one chunk per token. The text is the same. The bound is wider than
    the default 40 ms: 16 tokens of the double must fit it, and on a busy machine the double's
    pace is the machine's (at 40 ms, over 2.5 ms a token gave a smaller interval)."""
    from translate_server.inference.coalescing import MAX_INTERVAL

    from apps import litestar_app, uncoalesced_app

    first, later = await _stream(litestar_app(stream_coalesce_ms=2000), 40, times=2)
    assert [c.count("Wort") for c in first] == [1, 1, MAX_INTERVAL, MAX_INTERVAL, 6]
    assert [c.count("Wort") for c in later] == [1, MAX_INTERVAL, MAX_INTERVAL, 7]
    assert "".join(later) == "".join(first) == " Wort" * 40
    for answer in await _stream(uncoalesced_app(), 40, times=2):
        assert len(answer) == 40


def _arm(cpu_us: float, per_token: float | None = None) -> dict[str, float]:
    figures = {"server_cpu_us_per_request": cpu_us, "requests_per_s": 1.0}
    if per_token is not None:
        figures["server_cpu_us_per_token"] = per_token
    return figures


def test_one_core_figures_invert_cpu_time_and_stand_each_arm_on_its_floor() -> None:
    medians = {
        "litestar chat-stream": _arm(900, 10.0),
        "uncoalesced chat-stream": _arm(2000, 25.0),
        "floor chat-stream": _arm(700, 8.0),
        "floor-coalesced chat-stream": _arm(150, 2.0),
        "litestar translate": _arm(500),
        "floor-coalesced translate": _arm(125),
        "floor translate": _arm(100),
        "uncoalesced translate": _arm(400),
        "litestar chat": {**_arm(400), "output_tokens_per_request": 100.0},
    }
    table = one_core_figures(medians)
    assert table["litestar"]["stream_tokens_per_s"] == pytest.approx(100_000)
    assert table["litestar"]["stream_us_per_token_above_floor"] == pytest.approx(8.0)
    assert table["litestar"]["stream_us_per_token_vs_floor"] == pytest.approx(5.0)
    assert table["uncoalesced"]["stream_us_per_token_above_floor"] == pytest.approx(17.0)
    assert table["uncoalesced"]["translate_us_per_request_vs_floor"] == pytest.approx(4.0)
    assert table["litestar"]["translate_requests_per_s"] == pytest.approx(2000)
    assert table["litestar"]["translate_tokens_per_s"] == pytest.approx(24_000)
    assert table["litestar"]["chat_tokens_per_s"] == pytest.approx(250_000)  # as counted
    assert "chat_us_per_request" not in table["uncoalesced"]
    medians["litestar-floor translate"] = _arm(250)
    table = one_core_figures(medians)
    assert table["litestar"]["translate_us_per_request_vs_framework"] == pytest.approx(2.0)
    assert table["litestar-floor"]["translate_us_per_request_vs_floor"] == pytest.approx(2.0)
    text = format_ceiling({"one_core": table})
    assert "litestar over floor-coalesced: streamed token 8.0 us above, 5.00x" in text
    assert "litestar over litestar-floor: /translate 250.0 us above, 2.00x" in text


def test_real_engine_figures_set_the_service_against_vllms_server() -> None:
    medians = {
        "engine": {"front_cpu_ms_per_1k_tokens": 100.0, "output_tokens_per_s": 1400.0},
        "chat": {"front_cpu_ms_per_1k_tokens": 120.0, "output_tokens_per_s": 1300.0},
        "vllm": {"front_cpu_ms_per_1k_tokens": 240.0, "output_tokens_per_s": 1100.0},
    }
    table = real_engine_figures(medians)
    assert table["chat"]["vs_vllm"] == pytest.approx(0.5)
    assert table["engine"]["one_core_tokens_per_s"] == pytest.approx(10_000)
    text = format_ceiling({"one_core": {}, "real_engine": table})
    assert "(0.50x vLLM's server)" in text


def test_the_double_answers_a_text_as_long_as_it_one_sentence_per_sentence(bench_modules) -> None:
    from zero_engine import REPLIES, answer_like

    text = "The meeting moved to Thursday. Two speakers are travelling! Is that fine?"
    answer = answer_like(text, REPLIES[0])
    assert answer.count(".") == 3
    assert abs(len(answer) - len(text)) <= 12
    assert set(answer.replace(".", "").split()) <= set(REPLIES[0].rstrip(".").split())


async def test_a_translation_over_the_double_is_one_engine_request_the_guard_passes(
    bench_modules,
) -> None:
    """A long text gets a plausible answer: no quality retry, no piece-by-piece fallback, so the
    benchmark measures a normal request."""
    httpx = pytest.importorskip("httpx")
    import zero_engine
    from apps import litestar_app

    calls = []
    generate = zero_engine.ZeroLatencyEngine.generate

    def counted(self, *args, **kwargs):
        calls.append(args[0])
        return generate(self, *args, **kwargs)

    zero_engine.ZeroLatencyEngine.generate = counted
    try:
        app = litestar_app()
        text = (
            "Die Besprechung wurde auf Donnerstagnachmittag verschoben, weil zwei Vortragende "
            "unterwegs sind. Das Restaurant an der Ecke serviert jeden Freitag frischen Fisch. "
            "Wenden Sie sich bei Fragen jederzeit an unser Support-Team. Vielen Dank."
        )
        async with app.lifespan():
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                response = await client.post(
                    "/translate", json={"text": text, "source_lang": "de", "target_lang": "en"}
                )
    finally:
        zero_engine.ZeroLatencyEngine.generate = generate
    assert response.status_code == 200
    body = response.json()
    assert len(calls) == 1
    assert not body.get("warnings")
    assert body["translation"].startswith("This is a short translation")
    assert body["translation"].count(".") == 4
