"""Prompts are tokenized where they cost least: short ones on the event loop, long ones in a
worker thread while the event loop goes on serving the streams in flight."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence

import pytest

from translate_server.inference.engine import ChatMessage
from translate_server.inference.generation import THREAD_PROMPT_CHARS, GenerationService

from tests.support.fakes import FakeEngine, TokenizerWatchingEngine
from tests.support.harness import eventually


def chat(chars: int) -> list[ChatMessage]:
    return [
        {"role": "system", "content": "Translate."},
        {"role": "user", "content": ("word " * chars)[:chars]},
    ]


async def test_a_short_prompt_is_tokenized_on_the_event_loop() -> None:
    engine = TokenizerWatchingEngine()
    prompt = await GenerationService(engine).render(chat(THREAD_PROMPT_CHARS // 2))
    assert engine.threads == [threading.get_ident()]
    assert prompt.token_ids == FakeEngine().tokenize_chat(chat(THREAD_PROMPT_CHARS // 2))


async def test_a_long_prompt_is_tokenized_while_the_event_loop_goes_on() -> None:
    engine = TokenizerWatchingEngine()
    engine.hold = threading.Event()
    rendering = asyncio.create_task(GenerationService(engine).render(chat(THREAD_PROMPT_CHARS)))
    await eventually(lambda: engine.threads, every=0.001)  # the loop turns while it tokenizes
    engine.hold.set()
    prompt = await rendering
    assert engine.held_until_released is True
    assert engine.threads[0] != threading.get_ident()
    assert prompt.token_ids == FakeEngine().tokenize_chat(chat(THREAD_PROMPT_CHARS))


async def test_a_long_prompt_that_fails_to_tokenize_raises_to_the_request() -> None:
    class BrokenTokenizer(FakeEngine):
        def tokenize_chat(self, messages: Sequence[ChatMessage]) -> list[int]:
            raise ValueError("the chat template rejects this conversation")

    with pytest.raises(ValueError, match="chat template"):
        await GenerationService(BrokenTokenizer()).render(chat(THREAD_PROMPT_CHARS))


async def test_a_plain_prompt_is_tokenized_as_text_and_off_the_loop_when_long() -> None:
    engine = TokenizerWatchingEngine()
    service = GenerationService(engine)
    short = await service.render("English: Hi\nGerman:")
    long_text = "English: " + "word " * THREAD_PROMPT_CHARS
    long = await service.render(long_text)
    assert engine.decode(short.token_ids) == "English: Hi\nGerman:"
    assert engine.decode(long.token_ids) == long_text
    assert engine.threads[0] == threading.get_ident() != engine.threads[1]
