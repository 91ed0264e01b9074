"""A test double of the engine: real streaming semantics (deltas, n, stop, max_tokens, aborts)
over a word-level tokenizer, with knobs for the faults the service must survive."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import threading
import zlib
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence

import msgspec

from translate_server.inference.engine import (
    ChatMessage,
    EngineDeadError,
    EngineInfo,
    EngineOutput,
    EngineRejectedError,
    EngineTimings,
    GenerationStep,
    LoraAdapter,
    SamplingOptions,
    TokenLogprob,
)

from tests.support.fake_coalescing import coalesced as _coalesced

_SOURCE = re.compile(r"<source>\n(.*)\n</source>", re.DOTALL)
_USER = re.compile(r"<\|im_start\|>user\n(.*?)<\|im_end\|>", re.DOTALL)
# The last pair of a few-shot completion prompt: "English: text" then an open "German:".
_FEW_SHOT = re.compile(r"([^\n:]+): ([^\n]*)\n([^\n:]+):\Z")


def fake_translator(prompt: str, _: SamplingOptions) -> str:
    """Answers a translation prompt with the source text upper-cased, any other chat with
    an echo of the last user message, a few-shot completion prompt ("English: text\nGerman:")
    as a base model would continue it (the text upper-cased, then another pair that only the
    stop at the end of the line cuts off), and any other plain text prompt (legacy
    completions) with an echo of it: recognisable, deterministic output."""
    if (few_shot := _FEW_SHOT.search(prompt)) and not prompt.startswith("<|im_start|>"):
        source, text, target = few_shot.groups()
        return f" {text.upper()}\n{source}: and so on\n{target}:"
    match = _SOURCE.search(prompt)
    if match:
        return match.group(1).upper()
    users = _USER.findall(prompt)
    return "echo: " + (users[-1] if users else prompt)


# Words the mixed double answers in, per target language its prompt names.
_ANSWER_WORDS = {
    "German": "Das ist eine kurze Übersetzung immer dieselbe",
    "French": "C'est une courte traduction toujours la même",
    "Spanish": "Es una traducción corta siempre la misma",
    "English": "This is a short translation always the same",
    "Japanese": "これは 短い 翻訳 です いつも 同じ",
    "Chinese": "这是 一个 简短 的 翻译 总是 一样",
}
_TARGET_NAME = re.compile(r"\b(?:to|into) (" + "|".join(_ANSWER_WORDS) + r")\b")
_MASK_TOKEN = re.compile(r"\{\d{1,3}\}")


def mixed_translator(prompt: str, options: SamplingOptions) -> str:
    """A translation prompt answered as a small model might: mostly a text in the target
    language about as long as the source, one sentence per sentence, its mask tokens kept;
    and, chosen by the source's checksum (and again for a retry's sampling), an echo, an
    answer in English (in German for English targets), a preamble, half an answer, nothing,
    or one that lost its mask tokens. Deterministic: the guard's every verdict repeats."""
    match = _SOURCE.search(prompt)
    target = _TARGET_NAME.search(prompt)
    if match is None or target is None:
        return fake_translator(prompt, options)
    source = match.group(1)
    kind = (zlib.crc32(source.encode()) + (options.temperature > 0)) % 12
    if kind == 0:
        return source
    language = target.group(1)
    if kind == 1:
        language = "German" if language == "English" else "English"
    words = _ANSWER_WORDS[language].split()
    sentences = []
    for sentence in re.split(r"(?<=[.!?])\s+", _MASK_TOKEN.sub("", source).strip()):
        out: list[str] = []
        while sum(len(w) + 1 for w in out) < len(sentence) - 1:
            out.append(words[len(out) % len(words)])
        sentences.append(" ".join(out or words[:1]) + ".")
    answer = " ".join(sentences)
    tokens = "" if kind == 5 else " ".join(_MASK_TOKEN.findall(source))
    answer = f"{answer} {tokens}".strip()
    if kind == 2:
        return f"Here is the translation: {answer}"
    if kind == 3:
        return answer[: len(answer) // 3]
    if kind == 4:
        return ""
    return answer


class FakeEngine:
    TOKEN = re.compile(r"\S+|\s+")  # a word or a run of whitespace is one token

    def __init__(
        self,
        *,
        responder: Callable[[str, SamplingOptions], str] = fake_translator,
        max_model_len: int = 2048,
        model: str = "fake-model",
        token_delay: float = 0.0,
        first_token_delay: float = 0.0,
        chat_template: bool = True,
    ) -> None:
        self.responder = responder
        self._info = EngineInfo(
            model=model, max_model_len=max_model_len, chat_template=chat_template
        )
        self.token_delay = token_delay
        self.first_token_delay = first_token_delay
        self.alive = True
        self.hang = False
        self.fail_after_tokens: int | None = None
        # Fails each request it is given while staying up (`alive`), as an engine whose kernel
        # cannot compile does: every generation a 502 `engine_failed`.
        self.fail_every_request = False
        self.vocab: dict[str, int] = {}
        self.words: list[str] = []
        self.requests: list[tuple[str, list[int], SamplingOptions]] = []
        self.final_outputs = 0  # whole answers given at once (final_only requests)
        self.aborted: set[str] = set()
        self.unfinished: set[str] = set()
        self.shut_down = False
        # A chat template's refusal: tokenize_chat raises it (e.g. "system role not supported").
        self.template_refusal: str | None = None
        self._previous_prompt: list[int] = []
        # The engine's own figures on each request's last output, as vLLM gives them with its
        # statistics on: fixed, or chosen per request from its prompt text; None: off.
        self.timings: EngineTimings | Callable[[str], EngineTimings] | None = None
        self.trace_headers: list[Mapping[str, str] | None] = []  # as each request brought
        # LoRA adapters loaded (by id); a path that does not exist is refused, as vLLM does.
        self.adapters: dict[int, LoraAdapter] = {}
        # Each running stream's interval, and every retune asked (request id, interval).
        self.stream_intervals: dict[str, int] = {}
        self.retunes: list[tuple[str, int]] = []
        # The log probability of every token of an answer, chosen from the answer's text
        # (requests with `logprobs` only): how sure the double is of what it wrote.
        self.logprob_of: Callable[[str], float] = lambda answer: -0.25
        # The log probability of each prompt token (requests with `prompt_logprobs` only),
        # chosen from the token and the prompt's text before it.
        self.prompt_logprob_of: Callable[[str, str], float] = lambda token, before: -0.5

    # -- Engine protocol -------------------------------------------------------------------
    @property
    def info(self) -> EngineInfo:
        return self._info

    @property
    def is_alive(self) -> bool:
        return self.alive

    def tokenize_chat(self, messages: Sequence[ChatMessage]) -> list[int]:
        if self.template_refusal is not None:
            raise EngineRejectedError(self.template_refusal, param="messages")
        rendered = (
            "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
            + "<|im_start|>assistant\n"
        )
        return self._encode(rendered)

    def tokenize_text(
        self, text: str, *, special_tokens_as_text: bool = True, add_special_tokens: bool = True
    ) -> list[int]:
        return self._encode(text)

    def detokenize(self, token_ids: Sequence[int]) -> str:
        return "".join(self.token_strings(token_ids))

    def token_strings(self, token_ids: Sequence[int]) -> list[str]:
        # As vLLM checks them: ids it has no token for are refused.
        if unknown := [t for t in token_ids if not 0 <= t < len(self.words)]:
            raise EngineRejectedError(f"Token id {unknown[0]} is out of vocabulary", "tokens")
        return [self.words[t] for t in token_ids]

    async def generate(
        self,
        prompt_token_ids: list[int],
        options: SamplingOptions,
        request_id: str,
        trace_headers: Mapping[str, str] | None = None,
    ) -> AsyncGenerator[EngineOutput, None]:
        """Every step's delta or, for `final_only`, one output of the whole choices at the end
        (as vLLM's FINAL_ONLY gives them)."""
        self.trace_headers.append(trace_headers)
        # As vLLM validates a request when it is added: ids it has no token for are refused.
        if unknown := [t for t in prompt_token_ids if not 0 <= t < len(self.words)]:
            raise EngineRejectedError(f"Token id {unknown[0]} is out of vocabulary", "prompt")
        timings = self.timings
        if callable(timings):
            timings = timings(self.decode(prompt_token_ids))
        if options.prompt_logprobs:
            yield self._scored(prompt_token_ids, options, request_id)
            return
        async with contextlib.aclosing(
            self._deltas(prompt_token_ids, options, request_id)
        ) as deltas:
            if not options.final_only:
                intervals = self.stream_intervals
                intervals[request_id] = options.stream_interval
                try:
                    async for output in _coalesced(deltas, lambda: intervals.get(request_id, 1)):
                        if output.finished and timings is not None:
                            # vLLM reports one prefix-cache count, in both places.
                            yield msgspec.structs.replace(
                                output, timings=timings, cached_tokens=timings.cached_tokens
                            )
                        else:
                            yield output
                finally:
                    intervals.pop(request_id, None)
                return
            texts: dict[int, str] = {}
            counts: dict[int, int] = {}
            reasons: dict[int, str | None] = {}
            logprobs: dict[int, tuple[TokenLogprob, ...] | None] = {}
            async for output in deltas:
                for step in output.steps:
                    if step.logprobs is not None:
                        logprobs[step.index] = logprobs.get(step.index, ()) + step.logprobs
                    texts[step.index] = texts.get(step.index, "") + step.text
                    counts[step.index] = step.completion_tokens
                    reasons[step.index] = step.finish_reason
            self.final_outputs += 1
            yield EngineOutput(
                len(prompt_token_ids),
                [
                    GenerationStep(i, texts[i], counts[i], reasons[i], logprobs.get(i))
                    for i in sorted(texts)
                ],
                True,
                output.cached_tokens if timings is None else timings.cached_tokens,
                timings,
            )

    def _scored(
        self, prompt_token_ids: list[int], options: SamplingOptions, request_id: str
    ) -> EngineOutput:
        """A prompt's tokens scored, and one token answered: all a scoring request needs."""
        self.requests.append((request_id, list(prompt_token_ids), options))
        words = [self.words[t] for t in prompt_token_ids]
        scores = [0.0] + [
            self.prompt_logprob_of(word, "".join(words[:i])) for i, word in enumerate(words) if i
        ]
        step = GenerationStep(0, "", 1, "length")
        return EngineOutput(len(prompt_token_ids), [step], True, prompt_logprobs=tuple(scores))

    async def add_adapter(self, adapter: LoraAdapter) -> None:
        if not os.path.isdir(adapter.path):
            raise EngineRejectedError(f"No adapter found for {adapter.path}")
        self.adapters[adapter.id] = adapter

    async def remove_adapter(self, adapter: LoraAdapter) -> None:
        self.adapters.pop(adapter.id, None)

    async def _deltas(
        self, prompt_token_ids: list[int], options: SamplingOptions, request_id: str
    ) -> AsyncGenerator[EngineOutput, None]:
        if not self.alive:
            raise EngineDeadError("fake engine is dead")
        if self.fail_every_request:
            raise EngineDeadError("fake engine failed the request")
        if options.adapter is not None and options.adapter.id not in self.adapters:
            raise EngineRejectedError(f"adapter {options.adapter.name} is not loaded")
        self.requests.append((request_id, prompt_token_ids, options))
        self.unfinished.add(request_id)
        prompt = self.decode(prompt_token_ids)
        cached = self._cached_tokens(prompt_token_ids)
        try:
            if self.first_token_delay:
                await asyncio.sleep(self.first_token_delay)
            while self.hang:
                await asyncio.sleep(0.01)
            choices = [self._choice_tokens(prompt, options, i) for i in range(options.n)]
            sureness = [self.logprob_of("".join(tokens)) for tokens, _ in choices]
            positions = [0] * options.n
            produced = 0
            while any(p < len(tokens) for p, (tokens, _) in zip(positions, choices, strict=True)):
                if request_id in self.aborted:
                    self.aborted.discard(request_id)
                    yield EngineOutput(
                        len(prompt_token_ids),
                        [
                            GenerationStep(i, "", positions[i], "abort")
                            for i in range(options.n)
                            if positions[i] < len(choices[i][0])
                        ],
                        True,
                    )
                    return
                if not self.alive or (
                    self.fail_after_tokens is not None and produced >= self.fail_after_tokens
                ):
                    self.alive = False
                    raise EngineDeadError("fake engine died mid-generation")
                if self.token_delay:
                    await asyncio.sleep(self.token_delay)
                steps = []
                for i, (tokens, reason) in enumerate(choices):
                    if positions[i] < len(tokens):
                        positions[i] += 1
                        done = positions[i] == len(tokens)
                        token = tokens[positions[i] - 1]
                        steps.append(
                            GenerationStep(
                                i,
                                token,
                                positions[i],
                                reason if done else None,
                                _logprobs(token, options.logprobs, sureness[i]),
                            )
                        )
                produced += 1
                finished = all(p == len(t) for p, (t, _) in zip(positions, choices, strict=True))
                yield EngineOutput(len(prompt_token_ids), steps, finished, cached)
        finally:
            self.unfinished.discard(request_id)

    async def abort(self, request_id: str) -> None:
        self.aborted.add(request_id)

    def retune_stream(self, request_id: str, interval: int) -> int | None:
        self.retunes.append((request_id, interval))
        if request_id not in self.stream_intervals:
            return None
        self.stream_intervals[request_id] = interval
        return interval

    def unfinished_requests(self) -> int:
        return len(self.unfinished)

    async def check_health(self) -> None:
        if not self.alive:
            raise EngineDeadError("fake engine is dead")

    def shutdown(self) -> None:
        self.shut_down = True

    def _cached_tokens(self, prompt_token_ids: list[int]) -> int:
        """A prefix cache of one entry: the prompt's common prefix with the previous one."""
        common = 0
        for a, b in zip(prompt_token_ids, self._previous_prompt, strict=False):
            if a != b:
                break
            common += 1
        self._previous_prompt = prompt_token_ids
        return common

    # -- helpers ---------------------------------------------------------------------------
    def count_tokens(self, text: str) -> int:
        return len(self._encode(text))

    def decode(self, token_ids: list[int]) -> str:
        return "".join(self.words[t] for t in token_ids)

    def _encode(self, text: str) -> list[int]:
        ids = []
        for piece in self.TOKEN.findall(text):
            if piece not in self.vocab:
                self.vocab[piece] = len(self.words)
                self.words.append(piece)
            ids.append(self.vocab[piece])
        return ids

    def _choice_tokens(
        self, prompt: str, options: SamplingOptions, index: int
    ) -> tuple[list[str], str]:
        text = self.responder(prompt, options)
        if options.n > 1:
            text = f"{text} #{index}"
        reason = "stop"
        for stop in options.stop:
            if stop in text:
                text = text[: text.index(stop)]
        tokens = re.findall(r"\s*\S+|\s+$", text) or [""]
        if options.ignore_eos:
            tokens = (tokens * options.max_tokens)[: options.max_tokens]
        if len(tokens) > options.max_tokens:
            tokens, reason = tokens[: options.max_tokens], "length"
        elif options.ignore_eos:
            reason = "length"
        return tokens, reason


def _logprobs(
    token: str, top_n: int | None, logprob: float = -0.25
) -> tuple[TokenLogprob, ...] | None:
    """Made-up but recognisable log probabilities: the chosen token at `logprob` (-0.25
    unless the double says otherwise), then alternatives `alt1`, `alt2`... each one lower."""
    if top_n is None:
        return None
    top = ((token, logprob), *((f"alt{k}", logprob - k) for k in range(1, top_n)))
    return (TokenLogprob(token, logprob, top[:top_n]),)


class TokenizerWatchingEngine(FakeEngine):
    """Notes the thread each prompt is tokenized on. With `hold` set, tokenizing the first
    prompt waits (10 s at most) until the test releases it, which the test can only do if the
    event loop is not the one waiting; `held_until_released` tells which it was."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[int] = []
        self.hold: threading.Event | None = None
        self.held_until_released: bool | None = None

    def tokenize_chat(self, messages: Sequence[ChatMessage]) -> list[int]:
        self.threads.append(threading.get_ident())
        if self.hold is not None and len(self.threads) == 1:
            self.held_until_released = self.hold.wait(timeout=10)
        return super().tokenize_chat(messages)

    def tokenize_text(
        self, text: str, *, special_tokens_as_text: bool = True, add_special_tokens: bool = True
    ) -> list[int]:
        self.threads.append(threading.get_ident())
        return super().tokenize_text(
            text,
            special_tokens_as_text=special_tokens_as_text,
            add_special_tokens=add_special_tokens,
        )
