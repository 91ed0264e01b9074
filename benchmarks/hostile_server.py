"""The server side of `hostile_stall.py`, loaded by uvicorn (`hostile_server:app`) in the
server's own process: the service over an engine double that answers at once, except for a
degenerate run of blank lines, and a timer of every event-loop callback."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import AsyncGenerator, Sequence
from pathlib import Path

from translate_server.inference.engine import (
    ChatMessage,
    EngineOutput,
    GenerationStep,
    SamplingOptions,
)
from translate_server.server.heap import freeze_startup_heap

from zero_engine import ZeroLatencyEngine

TURNS_FILE = "HOSTILE_STALL_TURNS_FILE"
BLANK_RUN = "BLANK-RUN"
# A degenerate answer: the model repeats its blank line until max_tokens (4096) runs out;
# one token may hold a few newlines.
BLANK_LINES = 4096


class HostileEngine(ZeroLatencyEngine):
    """The zero-latency engine, except that a prompt holding `BLANK-RUN` is answered with a
    line, `BLANK_LINES` blank lines and another line."""

    def tokenize_chat(self, messages: Sequence[ChatMessage]) -> list[int]:
        flag = int(any(BLANK_RUN in m["content"] for m in messages))
        return [flag, *super().tokenize_chat(messages)]

    async def generate(
        self, prompt_token_ids: list[int], options: SamplingOptions, request_id: str
    ) -> AsyncGenerator[EngineOutput, None]:
        if prompt_token_ids[0] != 1:
            # Without the flag, the ids are the zero-latency engine's own (language, answer).
            async for output in super().generate(prompt_token_ids[1:], options, request_id):
                yield output
            return
        answer = "Erste Zeile" + "\n" * BLANK_LINES + "zweite Zeile"
        yield EngineOutput(len(prompt_token_ids), [GenerationStep(0, answer, 100, "stop")], True)


def _note_longest_loop_turn(path: str) -> None:
    """Measure every callback the event loop runs in CPU time of its thread (what the loop
    itself spends, whatever else the machine runs); the longest so far is kept in `path`."""
    longest = [0.0]
    run = asyncio.events.Handle._run

    def timed(handle: asyncio.events.Handle) -> None:
        began = time.thread_time()
        try:
            run(handle)
        finally:
            if (spent := time.thread_time() - began) > longest[0]:
                longest[0] = spent
                Path(path).write_text(str(spent))

    asyncio.events.Handle._run = timed  # type: ignore[method-assign]

    def warm(*_: object) -> None:
        # Sent once the server is warm: the start-up heap is frozen, as `serve` does once
        # the engine is up (this factory is not `serve`), and timing starts again.
        freeze_startup_heap()
        longest[0] = 0.0

    signal.signal(signal.SIGUSR1, warm)


def app():
    """uvicorn factory: the service around the hostile engine, no translation cache (every
    request does its whole work)."""
    if path := os.environ.get(TURNS_FILE):
        _note_longest_loop_turn(path)
    from translate_server.app import create_app
    from translate_server.server.logging_setup import configure_logging
    from translate_server.settings import load_settings

    configure_logging("json", "warning")

    settings = load_settings(
        {"served_model_name": "bench", "translation_cache_size": 0}, environ={}
    )
    return create_app(settings, lambda: HostileEngine(model="bench"))
