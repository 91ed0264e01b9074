"""Sends a test set to a server, through `/translate` or, with a plain one-line instruction,
through any OpenAI-compatible `/v1/chat/completions` (instruction-tuned models) or
`/v1/completions` (base models); a bounded number of requests at a time."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import aiohttp
import msgspec

from translate_server.quality.datasets import Segment
from translate_server.text.languages import resolve_language

# "memory": /translate with the pair's translation memory (`bench quality --memory`).
APIS = ("translate", "chat", "completion", "memory")
PATHS = {
    "translate": "/translate",
    "chat": "/v1/chat/completions",
    "completion": "/v1/completions",
    "memory": "/translate",
}
INSTRUCTION = (
    "Translate the following text from {source} to {target}. "
    "Answer with the translation only.\n\n{text}"
)
# A base model has no chat: the same instruction as a prompt to complete, answered on the
# line after it (the least a user of a base model writes).
COMPLETION_INSTRUCTION = (
    "Translate the following text from {source} to {target}.\n{source}: {text}\n{target}:"
)


class Answer(msgspec.Struct, frozen=True, kw_only=True):
    segment_id: str
    text: str = ""
    finish_reason: str | None = None
    error: str | None = None  # the request failed: status and message
    latency_s: float = 0.0
    # What the server said was still wrong (/translate's `warnings`; chat and completion
    # answers have none).
    warnings: tuple[str, ...] = ()
    # With a memory: how /translate says the text matched it ("exact", "fuzzy"; None: not).
    memory_match: str | None = None
    # /translate's quality estimate of the text and whether it needs review; with
    # `quality_signals` asked for, what the estimate was computed from.
    quality_estimate: float | None = None
    needs_review: bool | None = None
    quality_signals: dict[str, Any] | None = None


def chat_max_tokens(text: str) -> int:
    """The bound a chat request gets: /translate's own default rule (3 x source tokens + 16),
    with a source token taken as 4 characters, since a chat client has no tokenizer."""
    return 3 * math.ceil(len(text) / 4) + 16


def translate_body(segment: Segment, max_tokens: int | None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "text": segment.source,
        "source_lang": segment.source_lang,
        "target_lang": segment.target_lang,
    }
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    return body


def chat_body(segment: Segment, model: str, max_tokens: int | None) -> dict[str, Any]:
    prompt = INSTRUCTION.format(
        source=resolve_language(segment.source_lang).name,
        target=resolve_language(segment.target_lang).name,
        text=segment.source,
    )
    return {
        "model": model,
        "messages": [{"role": "user", "content": prompt}],
        "temperature": 0.0,
        "max_tokens": max_tokens if max_tokens is not None else chat_max_tokens(segment.source),
    }


def completion_body(segment: Segment, model: str, max_tokens: int | None) -> dict[str, Any]:
    source = resolve_language(segment.source_lang).name
    target = resolve_language(segment.target_lang).name
    prompt = COMPLETION_INSTRUCTION.format(
        source=source, target=target, text=" ".join(segment.source.split())
    )
    return {
        "model": model,
        "prompt": prompt,
        "temperature": 0.0,
        "stop": ["\n"],
        "max_tokens": max_tokens if max_tokens is not None else chat_max_tokens(segment.source),
    }


def _body(
    api: str,
    segment: Segment,
    model: str,
    max_tokens: int | None,
    memories: Mapping[tuple[str, str], str] | None = None,
    memory_threshold: float | None = None,
    translate_options: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    if api == "translate":
        return translate_body(segment, max_tokens) | dict(translate_options or {})
    if api == "memory":
        memory = (memories or {})[(segment.source_lang, segment.target_lang)]
        body = translate_body(segment, max_tokens) | {"memory": memory}
        body |= dict(translate_options or {})
        if memory_threshold is not None:
            body["memory_threshold"] = memory_threshold
        return body
    if api == "chat":
        return chat_body(segment, model, max_tokens)
    return completion_body(segment, model, max_tokens)


def _parse(api: str, payload: dict[str, Any]) -> tuple[str, str | None, tuple[str, ...]]:
    """The answer's text, finish reason and warnings (a single text's: a list of kinds)."""
    if api in ("translate", "memory"):
        warnings = tuple(str(w) for w in payload.get("warnings") or ())
        return payload.get("translation") or "", payload.get("finish_reason"), warnings
    choice = payload["choices"][0]
    if api == "completion":
        return (choice.get("text") or "").strip(), choice.get("finish_reason"), ()
    return (choice.get("message") or {}).get("content") or "", choice.get("finish_reason"), ()


async def _send(
    session: aiohttp.ClientSession, url: str, api: str, body: dict[str, Any], segment_id: str
) -> Answer:
    started = time.perf_counter()
    try:
        async with session.post(
            url, data=msgspec.json.encode(body), headers={"content-type": "application/json"}
        ) as response:
            raw = await response.read()
        elapsed = time.perf_counter() - started
        if response.status != 200:
            return Answer(
                segment_id=segment_id,
                latency_s=elapsed,
                error=f"HTTP {response.status}: {raw[:200].decode(errors='replace')}",
            )
        payload = msgspec.json.decode(raw)
        text, reason, warnings = _parse(api, payload)
        matched = payload.get("memory_match") if isinstance(payload, dict) else None
        return Answer(
            segment_id=segment_id,
            text=text,
            finish_reason=reason,
            latency_s=elapsed,
            warnings=warnings,
            memory_match=matched.get("match") if isinstance(matched, dict) else None,
            quality_estimate=payload.get("quality_estimate"),
            needs_review=payload.get("needs_review"),
            quality_signals=payload.get("quality_signals"),
        )
    except (
        TimeoutError,
        aiohttp.ClientError,
        msgspec.DecodeError,
        KeyError,
        IndexError,
        TypeError,
    ) as exc:
        return Answer(
            segment_id=segment_id,
            latency_s=time.perf_counter() - started,
            error=f"{type(exc).__name__}: {str(exc)[:200]}",
        )


async def translate_all(
    base_url: str,
    api: str,
    segments: Sequence[Segment],
    *,
    model: str | None = None,
    concurrency: int = 16,
    max_tokens: int | None = None,
    timeout_s: float = 300.0,
    on_answer: Callable[[Answer], None] | None = None,
    memories: Mapping[tuple[str, str], str] | None = None,
    memory_threshold: float | None = None,
    translate_options: Mapping[str, Any] | None = None,
) -> list[Answer]:
    """One answer per segment, in the segments' order; a failed request is an answer with
    `error` set, never an exception. `memories`: the "memory" API's memory id per (source,
    target) language; `translate_options`: fields added to every /translate body
    (`candidates`, `quality_signals`)."""
    if api not in APIS:
        raise ValueError(f"api is one of {APIS}: {api!r}")
    if api not in ("translate", "memory") and not model:
        raise ValueError(f"the {api} API needs a model name")
    url = base_url.rstrip("/") + PATHS[api]
    gate = asyncio.Semaphore(concurrency)
    connector = aiohttp.TCPConnector(limit=concurrency)
    timeout = aiohttp.ClientTimeout(total=timeout_s)

    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:

        async def one(segment: Segment) -> Answer:
            body = _body(
                api, segment, model or "", max_tokens, memories, memory_threshold, translate_options
            )
            async with gate:
                answer = await _send(session, url, api, body, segment.id)
            if on_answer is not None:
                on_answer(answer)
            return answer

        return list(await asyncio.gather(*(one(segment) for segment in segments)))
