"""An engine double with zero latency, for measuring the HTTP layer alone.

It satisfies `translate_server.inference.engine.Engine` and does as little as an engine can: a
prompt's "tokens" are one id per four characters, and every request finishes in a single output
with a fixed translation, without ever yielding to the event loop. Whatever a server spends per
request on top of this is its own HTTP, validation, serialization and bookkeeping cost.

A prompt with a text between the service's markers (`<source>` ... `</source>`, as `/translate`
and the load generator's chat prompt send it) gets a translation as long as the text, one
sentence per sentence, in the language asked for: the service's quality guard then passes it as
it would a real answer, and a request costs what a normal one does, not a retry's work.

A request that asks for exactly `max_tokens` tokens (`ignore_eos`, as the streaming
comparison sends) gets them one output per token, each one event-loop turn after the last,
which is how a real engine's outputs reach a server; what a server spends per streamed token
on top of that is its own. With `SamplingOptions.stream_interval` N above 1 it does what vLLM
does: the first and the last output at once, otherwise one output per N tokens (the held-back
text comes with the next); `retune_stream` changes N mid-stream. At zero latency the service's
stream pace measures next to nothing per token, so a coalescing server asks for the largest
interval it allows.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncGenerator, Mapping, Sequence

from translate_server.inference.engine import (
    ChatMessage,
    EngineInfo,
    EngineOutput,
    GenerationStep,
    SamplingOptions,
)

REPLY = "Das ist eine kurze Übersetzung, immer dieselbe."
REPLY_TOKENS = 12
# The reply in the language a translation prompt asks for ("... from English to French"), so
# that the service's quality guard passes it as a real answer would (its language check runs;
# no retry). Anything else gets the German one.
REPLIES = (
    REPLY,
    "C'est une courte traduction, toujours la même.",
    "Es una traducción corta, siempre la misma.",
    "This is a short translation, always the same.",
)
_TARGETS = {"German": 0, "French": 1, "Spanish": 2, "English": 3}
_TARGET = re.compile(r"\bto (German|French|Spanish|English)\b")
_SOURCE = re.compile(r"<source>\n(.*?)\n</source>", re.DOTALL)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
TOKEN = " Wort"  # each streamed output's text
CHARS_PER_TOKEN = 4
_MAX_ANSWERS = 4096  # remembered answers (a workload cycles through a few hundred texts)


def answer_like(text: str, reply: str) -> str:
    """`reply`'s words, one sentence per sentence of `text`, each about as long as its own."""
    words = reply.rstrip(".").split()
    sentences = []
    for sentence in _SENTENCE_END.split(text.strip()):
        out: list[str] = []
        while sum(len(w) + 1 for w in out) < len(sentence) - 1:
            out.append(words[len(out) % len(words)])
        sentences.append(" ".join(out or words[:1]) + ".")
    return " ".join(sentences)


class ZeroLatencyEngine:
    def __init__(self, model: str = "zero-latency", max_model_len: int = 4096) -> None:
        self._info = EngineInfo(model=model, max_model_len=max_model_len)
        # Answers to texts, by the id the prompt's second token carries (0: the fixed reply).
        self._answers: list[str] = [""]
        self._answer_ids: dict[tuple[str, int], int] = {}
        # Each running stream's interval (`retune_stream` changes it mid-stream).
        self.stream_intervals: dict[str, int] = {}

    @property
    def info(self) -> EngineInfo:
        return self._info

    @property
    def is_alive(self) -> bool:
        return True

    def tokenize_chat(self, messages: Sequence[ChatMessage]) -> list[int]:
        chars = sum(len(m["content"]) for m in messages)
        target = _TARGET.search(messages[0]["content"]) if messages else None
        language = _TARGETS[target.group(1)] if target else 0
        source = _SOURCE.search(messages[-1]["content"]) if messages else None
        # The first token id says which language to answer in, the second which answer.
        return [language, self._answer_id(source.group(1), language) if source else 0] + [0] * (
            chars // 4 + 4 * len(messages) + 1
        )

    def _answer_id(self, text: str, language: int) -> int:
        key = (text, language)
        found = self._answer_ids.get(key)
        if found is None:
            if len(self._answers) > _MAX_ANSWERS:
                self._answers, self._answer_ids = [""], {}
            found = self._answer_ids[key] = len(self._answers)
            self._answers.append(answer_like(text, REPLIES[language]))
        return found

    def tokenize_text(self, text: str, *, special_tokens_as_text: bool = True) -> list[int]:
        return [0] * (len(text) // 4 + 1)

    async def generate(
        self,
        prompt_token_ids: list[int],
        options: SamplingOptions,
        request_id: str,
        trace_headers: Mapping[str, str] | None = None,
    ) -> AsyncGenerator[EngineOutput, None]:
        if options.ignore_eos:
            intervals = self.stream_intervals
            intervals[request_id] = max(1, options.stream_interval)
            sent = 0
            try:
                for count in range(1, options.max_tokens + 1):
                    last = count == options.max_tokens
                    if not (last or sent == 0 or count - sent >= intervals[request_id]):
                        continue
                    await asyncio.sleep(0)
                    finish = "length" if last else None
                    text = TOKEN * (count - sent)
                    sent = count
                    steps = [GenerationStep(i, text, count, finish) for i in range(options.n)]
                    yield EngineOutput(len(prompt_token_ids), steps, last)
            finally:
                intervals.pop(request_id, None)
            return
        reply = REPLIES[prompt_token_ids[0]] if prompt_token_ids else REPLY
        answer = self._answers[prompt_token_ids[1]] if len(prompt_token_ids) > 1 else ""
        reply, needed = (
            (answer, len(answer) // CHARS_PER_TOKEN + 1) if answer else (reply, REPLY_TOKENS)
        )
        tokens = min(needed, options.max_tokens)
        finish = "stop" if tokens == needed else "length"
        if finish == "length":
            reply = reply[: tokens * CHARS_PER_TOKEN]
        steps = [GenerationStep(i, reply, tokens, finish) for i in range(options.n)]
        yield EngineOutput(len(prompt_token_ids), steps, True)

    async def abort(self, request_id: str) -> None:
        return None

    def retune_stream(self, request_id: str, interval: int) -> int | None:
        if request_id not in self.stream_intervals:
            return None
        self.stream_intervals[request_id] = max(1, interval)
        return self.stream_intervals[request_id]

    def unfinished_requests(self) -> int:
        return 0

    async def check_health(self) -> None:
        return None

    def shutdown(self) -> None:
        return None
