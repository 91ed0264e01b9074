"""The official clients see their own errors, and behave on them as their makers meant: the
OpenAI SDK waits `Retry-After` and retries a rate limit but never a spent quota; the DeepL
client raises `QuotaExceededException` on 456 and `TooManyRequestsException` on 429. Attempts
are counted at the server (its /metrics)."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator

import deepl
import httpx
import openai
import pytest

from tests.support.harness import served

KEY = "team-key"


@pytest.fixture
def limits() -> dict:
    return {}


@pytest.fixture
async def url(make_app, limits: dict) -> AsyncIterator[str]:
    async with served(make_app(api_key=[KEY], **limits)) as base:
        yield base


def _chat(base: str, retries: int) -> object:
    client = openai.OpenAI(base_url=f"{base}/v1", api_key=KEY, max_retries=retries)
    return client.chat.completions.create(
        model="fake-model", messages=[{"role": "user", "content": "Hi"}], max_tokens=4
    )


async def _answered(base: str, status: int) -> int:
    async with httpx.AsyncClient() as client:
        metrics = (await client.get(f"{base}/metrics")).text
    pattern = rf'translate_requests_total{{route="/v1/chat/completions",status="{status}"}} (\S+)'
    found = re.search(pattern, metrics)
    return int(float(found.group(1))) if found else 0


# One request per two seconds: a retry waits about two seconds, not a minute.
@pytest.mark.parametrize("limits", [{"limit_requests_per_minute": 1, "limit_window_seconds": 2}])
async def test_openai_waits_retry_after_and_retries_a_rate_limit(url: str) -> None:
    await asyncio.to_thread(_chat, url, 0)
    with pytest.raises(openai.RateLimitError) as refused:
        await asyncio.to_thread(_chat, url, 0)
    assert refused.value.code == "rate_limit_exceeded"
    started = time.monotonic()
    await asyncio.to_thread(_chat, url, 2)  # refused once, then let in after its wait
    assert time.monotonic() - started >= 1.0  # it waited as told (`retry-after-ms`)
    assert await _answered(url, 429) == 2 and await _answered(url, 200) == 2


@pytest.mark.parametrize("limits", [{"limit_characters_per_month": 2}])
async def test_openai_never_retries_insufficient_quota(url: str) -> None:
    await asyncio.to_thread(_chat, url, 0)  # two characters: the quota spent
    with pytest.raises(openai.RateLimitError) as refused:
        await asyncio.to_thread(_chat, url, 3)
    assert refused.value.code == "insufficient_quota"
    assert await _answered(url, 429) == 1  # one attempt, though three retries were allowed


@pytest.mark.parametrize("limits", [{"limit_characters_per_month": 5}])
async def test_deepl_raises_quota_exceeded_on_456(url: str) -> None:
    translator = deepl.Translator(KEY, server_url=url)
    await asyncio.to_thread(translator.translate_text, "Hello", target_lang="DE")
    usage = await asyncio.to_thread(translator.get_usage)
    assert usage.character.limit_reached and usage.character.limit == 5
    with pytest.raises(deepl.QuotaExceededException):
        await asyncio.to_thread(translator.translate_text, "Hello", target_lang="DE")


@pytest.mark.parametrize("limits", [{"limit_requests_per_minute": 1}])
async def test_deepl_raises_too_many_requests_on_429(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(deepl.http_client, "max_network_retries", 0)  # not minutes of backoff
    translator = deepl.Translator(KEY, server_url=url)
    await asyncio.to_thread(translator.translate_text, "Hello", target_lang="DE")
    with pytest.raises(deepl.TooManyRequestsException):
        await asyncio.to_thread(translator.translate_text, "Hello", target_lang="DE")
