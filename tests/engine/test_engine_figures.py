"""The real engine on the CPU: the log line of a request answered whole (no stream, so no
service-side time to first token) still says how long it waited in the engine, its time to
first token and its decode, consistent with its own total."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from structlog.testing import capture_logs

from translate_server.app import create_app
from translate_server.inference.engine.vllm_engine import create_vllm_engine
from translate_server.settings import load_settings

from tests.support.harness import running
from tests.support.stores import own_stores

SLOTS = 2
CLIENTS = 4
TOKENS = 32
ENGINE_FIELDS = (
    "engine_wait_ms",
    "prefill_ms",
    "engine_ttft_ms",
    "decode_ms",
    "preemptions",
    "cached_tokens",
)


def tiny_settings(tiny_model, **extra):
    return load_settings(
        {
            "model": str(tiny_model),
            "served_model_name": "tiny",
            "quality_guard": False,
            "max_model_len": 512,
            "max_num_seqs": SLOTS,
            **own_stores(Path(tempfile.mkdtemp(prefix="engine-figures-"))),
            **extra,
        },
        environ={},
    )


async def test_engine_figures_of_whole_answers_and_of_several_texts(tiny_model) -> None:
    """Chat requests answered whole log their own engine figures; a /translate of several
    texts logs its slowest engine request's (one engine start for both: it is the slow part)."""
    settings = tiny_settings(tiny_model)
    app = create_app(settings, lambda: create_vllm_engine(settings.engine))
    body = {
        "model": "tiny",
        "max_tokens": TOKENS,
        "ignore_eos": True,
        "seed": 1,
        # Longer than one of the engine's KV blocks (128 tokens on a CPU), which is what
        # its prefix cache keeps.
        "messages": [
            {
                "role": "user",
                "content": "Translate this, please: "
                + 8 * ("The train to Berlin leaves at nine from platform four. "),
            }
        ],
    }
    async with running(app) as client:
        with capture_logs() as logs:
            # More requests than the engine has slots: the last ones wait for a slot.
            responses = await asyncio.gather(
                *(client.post("/v1/chat/completions", json=body) for _ in range(CLIENTS))
            )
        assert all(r.status_code == 200 for r in responses)
        several_texts = await translate_texts(client, CLIENTS)
    check_slowest_engine_request(several_texts)
    lines = [entry for entry in logs if entry["event"] == "request"]
    assert len(lines) == CLIENTS
    print("\n" + "\n".join(" ".join(f"{k}={v}" for k, v in line.items()) for line in lines))
    for line in lines:
        assert "ttft_ms" not in line  # not streamed: the service saw no first token
        assert 0 <= line["engine_wait_ms"] <= line["engine_ttft_ms"] <= line["engine_ms"]
        assert line["prefill_ms"] <= line["engine_ttft_ms"]
        assert line["engine_ms"] <= line["total_ms"]
        # Arrival -> first token -> last token lies within the engine request's time. (The
        # time to first token is read when vLLM's front end handles the first token, the
        # decode from its core's clock: on a busy machine the two can overlap a little.)
        engine_view = line["engine_ttft_ms"] + line["decode_ms"]
        assert 0 < engine_view <= line["engine_ms"] * 1.05 + 5
        assert line["decode_ms"] > 0 and line["preemptions"] == 0
    waits = sorted(line["engine_wait_ms"] for line in lines)
    # Only SLOTS run at once: the others waited for one to decode its answer.
    assert waits[-1] > 0.5 * min(line["decode_ms"] for line in lines)
    # The same prompt again: those that waited found its prefix in the engine's cache.
    assert max(line["cached_tokens"] for line in lines) >= 128


async def translate_texts(client, count: int) -> dict:
    """The log line of one /translate of `count` texts: one engine request each."""
    texts = [f"The train to Berlin number {i} leaves at nine." for i in range(count)]
    with capture_logs() as logs:
        response = await client.post(
            "/translate",
            json={
                "text": texts,
                "source_lang": "en",
                "target_lang": "de",
                "max_tokens": TOKENS,
            },
        )
    assert response.status_code == 200, response.text
    (line,) = [entry for entry in logs if entry["event"] == "request"]
    return line


def check_slowest_engine_request(line: dict) -> None:
    print("\n" + " ".join(f"{k}={v}" for k, v in line.items()))
    assert line["engine_requests"] == CLIENTS
    # One engine request's figures (the slowest), consistent with one another and with the
    # whole request's time.
    assert 0 <= line["engine_wait_ms"] <= line["engine_ttft_ms"]
    assert line["prefill_ms"] <= line["engine_ttft_ms"]
    assert 0 < line["engine_ttft_ms"] + line["decode_ms"] <= line["total_ms"]
    assert line["preemptions"] == 0 and line["cached_tokens"] >= 0


async def test_without_engine_statistics_the_real_engine_logs_no_engine_figures(tiny_model) -> None:
    """Slow: statistics off is an engine setting, so it starts an engine of its own."""
    settings = tiny_settings(tiny_model, engine_metrics=False)
    async with running(create_app(settings, lambda: create_vllm_engine(settings.engine))) as client:
        line = await translate_texts(client, 2)
    assert line["engine_requests"] == 2 and line["completion_tokens"] > 0
    assert not set(ENGINE_FIELDS) & set(line), line
