"""Limits as each surface's clients see them: the refusal in their own shape and status, the
`x-ratelimit-*` headers, and a refused request that never reaches the engine."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, running

KEY = "team-key"
AUTH = {"Authorization": f"Bearer {KEY}"}


@pytest.fixture
async def limited(make_app) -> AsyncIterator[AppClient]:
    app = make_app(api_key=[KEY], limit_characters_per_month=20, limit_requests_per_minute=1000)
    async with running(app) as client:
        yield client


async def _translate(client: AppClient, text: str, path: str = "/translate") -> object:
    return await client.post(path, json={"text": text, "target_lang": "de"}, headers=AUTH)


async def test_translate_quota_is_insufficient_quota_not_to_be_retried(
    limited: AppClient, engine: FakeEngine
) -> None:
    assert (await _translate(limited, "x" * 15)).status_code == 200
    # Within the quota when it started: the one request allowed over.
    assert (await _translate(limited, "y" * 10)).status_code == 200
    engine_calls = len(engine.requests)
    refused = await _translate(limited, "z")
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "insufficient_quota"
    assert refused.json()["error"]["type"] == "insufficient_quota"
    assert refused.headers["x-should-retry"] == "false"
    assert len(engine.requests) == engine_calls  # no engine time for a refusal


async def test_every_answer_carries_the_rate_limit_headers(limited: AppClient) -> None:
    answer = await _translate(limited, "Hello")
    assert answer.headers["x-ratelimit-limit-requests"] == "1000"
    assert 0 <= int(answer.headers["x-ratelimit-remaining-requests"]) <= 1000
    assert answer.headers["x-ratelimit-reset-requests"].endswith("s")


async def test_a_rate_limit_is_a_retryable_429(make_app) -> None:
    async with running(make_app(api_key=[KEY], limit_requests_per_minute=1)) as client:
        assert (await _translate(client, "Hello")).status_code == 200
        refused = await _translate(client, "Hello")
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limit_exceeded"
    assert int(refused.headers["retry-after"]) >= 1
    assert refused.headers["x-ratelimit-remaining-requests"] == "0"


async def test_deepl_quota_is_456_and_usage_tells_the_real_count(limited: AppClient) -> None:
    deepl = {"Authorization": f"DeepL-Auth-Key {KEY}"}
    body = {"text": ["x" * 25], "target_lang": "DE"}
    assert (await limited.post("/v2/translate", json=body, headers=deepl)).status_code == 200
    usage = (await limited.get("/v2/usage", headers=deepl)).json()
    assert usage == {"character_count": 25, "character_limit": 20}
    refused = await limited.post("/v2/translate", json=body, headers=deepl)
    assert refused.status_code == 456
    assert refused.json() == {"message": "Quota exceeded"}


async def test_libretranslate_rate_limit_is_its_slowdown_body(make_app) -> None:
    async with running(make_app(api_key=[KEY], limit_requests_per_minute=1)) as client:
        body = {"q": "Hello", "source": "en", "target": "de", "api_key": KEY}
        assert (await client.post("/libretranslate/translate", json=body)).status_code == 200
        refused = await client.post("/libretranslate/translate", json=body)
    assert refused.status_code == 429
    assert refused.json()["error"].startswith(
        "Slowdown: Rate limit reached: 1 requests per 1 minute"
    )


@pytest.mark.parametrize(
    ("limit", "status", "reason"),
    [
        ({"limit_requests_per_minute": 1}, 429, "rateLimitExceeded"),
        ({"limit_characters_per_month": 3}, 403, "dailyLimitExceeded"),
    ],
)
async def test_google_refusals_carry_their_reasons(
    make_app, limit: dict, status: int, reason: str
) -> None:
    async with running(make_app(api_key=[KEY], **limit)) as client:
        url = f"/language/translate/v2?key={KEY}"
        first = await client.post(url, json={"q": "Hello", "target": "de"})
        refused = await client.post(url, json={"q": "Hi", "target": "de"})
    assert first.status_code == 200  # within the limits when it came (the one over)
    assert refused.status_code == status
    assert refused.json()["error"]["errors"][0]["reason"] == reason
