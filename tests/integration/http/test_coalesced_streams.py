"""Coalesced streams on both surfaces: fewer chunks, the same text, every token for logprobs."""

from __future__ import annotations

import json

import openai

from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, running

WORDS = 60
STORY = " ".join(f"word{i}" for i in range(WORDS))


def _engine() -> FakeEngine:
    engine = FakeEngine(token_delay=0.003)
    engine.responder = lambda prompt, options: STORY
    return engine


def sdk(client: AppClient) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url=f"{client.base_url}/v1", api_key="unused", http_client=client, max_retries=0
    )


async def _chat(client: AppClient, **extra: object) -> list[str]:
    stream = await sdk(client).chat.completions.create(
        model="fake-model",
        messages=[{"role": "user", "content": "tell"}],
        stream=True,
        **extra,  # type: ignore[arg-type]
    )
    return [
        chunk.choices[0].delta.content
        async for chunk in stream
        if chunk.choices and chunk.choices[0].delta.content
    ]


async def test_chat_streams_coalesced_chunks_with_all_the_text(make_app) -> None:
    engine = _engine()
    async with running(make_app(engine, stream_coalesce_ms=40)) as client:
        first = await _chat(client)  # the server learns the engine's pace
        # It starts a chunk per token, and coalesces once it has timed a few.
        assert engine.requests[-1][2].stream_interval == 1
        assert engine.retunes and engine.retunes[0][1] > 1
        assert len(first) < WORDS / 2
        chunks = await _chat(client)
    assert engine.requests[-1][2].stream_interval > 1
    assert "".join(chunks) == "".join(first) == STORY
    assert len(chunks) < WORDS / 2


async def test_chat_with_logprobs_gets_a_chunk_per_token(make_app) -> None:
    engine = _engine()
    async with running(make_app(engine, stream_coalesce_ms=40)) as client:
        await _chat(client)
        chunks = await _chat(client, logprobs=True)
    assert engine.requests[-1][2].stream_interval == 1
    assert len(chunks) == WORDS


async def test_off_streams_a_chunk_per_token(make_app) -> None:
    engine = _engine()
    async with running(make_app(engine, stream_coalesce_ms=0)) as client:
        await _chat(client)
        chunks = await _chat(client)
    assert engine.requests[-1][2].stream_interval == 1
    assert len(chunks) == WORDS


async def test_translate_streams_coalesced_deltas_with_all_the_text(make_app) -> None:
    engine = _engine()
    body = {"text": STORY, "source_lang": "en", "target_lang": "de", "stream": True}

    async def deltas(client: AppClient) -> list[str]:
        async with client.stream("POST", "/translate", json=body) as response:
            assert response.status_code == 200
            return [
                json.loads(line[6:])["delta"]
                async for line in response.aiter_lines()
                if line.startswith("data: {")
            ]

    async with running(make_app(engine, stream_coalesce_ms=40)) as client:
        await _chat(client)  # the pace, learnt from any stream
        streamed = await deltas(client)
    assert engine.requests[-1][2].stream_interval > 1
    assert "".join(streamed) == STORY
    assert len([d for d in streamed if d]) < WORDS / 2
