"""The official `deepl` client against this server, over a real socket."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import deepl
import pytest

from tests.support.fakes import FakeEngine
from tests.support.harness import served


@pytest.fixture
def overrides() -> dict:
    return {}


@pytest.fixture
async def server_url(make_app, overrides: dict) -> AsyncIterator[str]:
    async with served(make_app(**overrides)) as url:
        yield url


async def _call(function, *args, **kwargs):
    return await asyncio.to_thread(function, *args, **kwargs)


async def test_deepl_client_translates(server_url: str, engine: FakeEngine) -> None:
    translator = deepl.Translator("any-key", server_url=server_url)
    result = await _call(
        translator.translate_text, "Good morning", source_lang="EN", target_lang="DE"
    )
    assert result.text == "GOOD MORNING"
    assert result.detected_source_lang == "EN"
    assert result.billed_characters == len("Good morning")
    assert (await _call(translator.get_usage)).character.count == len("Good morning")
    prompt = engine.decode(engine.requests[0][1])
    assert "from English to German" in prompt


async def test_deepl_client_batches_detects_and_keeps_html(server_url: str) -> None:
    translator = deepl.Translator("any-key", server_url=server_url)
    results = await _call(
        translator.translate_text,
        ["Die Besprechung wurde auf Donnerstag verschoben.", "<p>Hello <b>there</b></p>"],
        target_lang="EN-US",
        tag_handling="html",
        formality="prefer_more",
    )
    assert results[0].detected_source_lang == "DE"
    assert results[1].text == "<p>HELLO <b>THERE</b></p>"


async def test_deepl_client_languages(server_url: str) -> None:
    translator = deepl.Translator("any-key", server_url=server_url)
    sources = await _call(translator.get_source_languages)
    targets = await _call(translator.get_target_languages)
    assert "DE" in [language.code for language in sources]
    target_codes = [language.code for language in targets]
    assert "EN-US" in target_codes and "EN" not in target_codes
    assert all(language.supports_formality for language in targets)


async def test_deepl_errors_reach_the_client(server_url: str, engine: FakeEngine) -> None:
    translator = deepl.Translator("any-key", server_url=server_url)
    with pytest.raises(deepl.DeepLException, match=r"Bad request.*language tag"):
        await _call(translator.translate_text, "Hi", target_lang="xx-nonsense-tag")
    assert engine.requests == []


async def test_deepl_form_bodies_and_error_shape(make_app) -> None:
    from tests.support.harness import running

    async with running(make_app()) as client:
        response = await client.post(
            "/v2/translate", data={"text": "Hi", "target_lang": "DE", "source_lang": "EN"}
        )
        assert response.json() == {
            "translations": [
                {"detected_source_language": "EN", "text": "HI", "billed_characters": 2}
            ]
        }
        bad = await client.post("/v2/translate", json={"target_lang": "DE"})
        assert bad.status_code == 400 and set(bad.json()) == {"message"}


@pytest.mark.parametrize("overrides", [{"api_key": ["secret"]}])
async def test_deepl_auth_key_is_the_api_key(server_url: str) -> None:
    good = deepl.Translator("secret", server_url=server_url)
    assert (await _call(good.translate_text, "Hi", source_lang="EN", target_lang="DE")).text == "HI"
    bad = deepl.Translator("wrong", server_url=server_url)
    # 403 in DeepL's own shape: the client reports it as an authorization failure.
    with pytest.raises(deepl.AuthorizationException):
        await _call(bad.translate_text, "Hi", source_lang="EN", target_lang="DE")


async def test_deepl_clients_retry_after_a_slow_answer_is_billed_once(
    server_url: str, engine: FakeEngine
) -> None:
    """The client gives up after 10 s and sends the request again while the first still
    runs: the retry joins that run (`http.idempotency`), translated and billed once."""
    engine.first_token_delay = 12.0
    translator = deepl.Translator("any-key", server_url=server_url)
    result = await _call(
        translator.translate_text, "Good morning", source_lang="EN", target_lang="DE"
    )
    assert result.text == "GOOD MORNING"
    engine.first_token_delay = 0.0
    assert (await _call(translator.get_usage)).character.count == len("Good morning")
    assert len(engine.requests) == 1
