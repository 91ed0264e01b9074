"""LoRA adapters served beside the base model: chosen by pair and domain on /translate, DeepL
and LibreTranslate, by name on the OpenAI API; named in the answer, the log line and the
metrics; never sharing a cached translation."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import deepl
import openai
import pytest
from libretranslatepy import LibreTranslateAPI
from structlog.testing import capture_logs

from translate_server.settings import SettingsError

from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, running, served
from tests.support.tiny_lora import fake_adapter_dir

EN_DE = {"text": "Good morning", "source_lang": "en", "target_lang": "de"}


@pytest.fixture
def loras(tmp_path: Path) -> list[str]:
    return [
        f"de={fake_adapter_dir(tmp_path, 'de')}@en-de",
        f"from-en={fake_adapter_dir(tmp_path, 'from-en')}@en-*",
        f"ui={fake_adapter_dir(tmp_path, 'ui')}@en-de,domain=ui",
    ]


@pytest.fixture
async def client(make_app, loras) -> AsyncIterator[AppClient]:
    async with running(make_app(lora=loras)) as app_client:
        yield app_client


def adapters_used(engine: FakeEngine) -> list[str | None]:
    return [None if o.adapter is None else o.adapter.name for _, _, o in engine.requests]


@pytest.mark.parametrize(
    ("body", "model"),
    [
        (EN_DE, "de"),
        ({**EN_DE, "target_lang": "fr"}, "from-en"),
        ({**EN_DE, "domain": "ui"}, "ui"),
        ({**EN_DE, "source_lang": "fr"}, "fake-model"),  # nothing serves fr-de
        ({**EN_DE, "model": "fake-model"}, "fake-model"),  # the base model, named
        ({**EN_DE, "target_lang": "ja", "model": "ui"}, "ui"),  # an adapter, named
    ],
)
async def test_translate_picks_the_adapter_and_says_which(client, engine, body, model):
    response = await client.post("/translate", json=body)
    assert response.status_code == 200, response.text
    assert response.json()["model"] == model
    assert adapters_used(engine) == [None if model == "fake-model" else model]


async def test_a_translation_made_by_one_adapter_is_never_served_for_another(client, engine):
    for body in (EN_DE, {**EN_DE, "domain": "ui"}, {**EN_DE, "model": "fake-model"}):
        for _ in range(2):
            assert (await client.post("/translate", json=body)).status_code == 200
    # Each model asked once; its repeat came from the cache.
    assert adapters_used(engine) == ["de", "ui", None]


async def test_a_batch_routes_each_text_by_its_own_detected_pair(client, engine):
    body = {
        "text": ["Good morning, how are you today?", "Bonjour, comment allez-vous aujourd'hui ?"],
        "target_lang": "de",
    }
    answer = (await client.post("/translate", json=body)).json()
    assert answer["model"] == "de,fake-model"
    assert set(adapters_used(engine)) == {"de", None}


async def test_an_unknown_model_is_a_404_naming_what_is_served(client, engine):
    response = await client.post("/translate", json={**EN_DE, "model": "nope"})
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["code"] == "model_not_found"
    assert "`ui`" in error["message"]
    assert engine.requests == []


async def test_the_log_line_and_the_metrics_name_the_adapter(client):
    with capture_logs() as logs:
        await client.post("/translate", json={**EN_DE, "domain": "ui"})
        await client.post("/translate", json={**EN_DE, "source_lang": "fr"})
        chat = {"model": "de", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}
        assert (await client.post("/v1/chat/completions", json=chat)).status_code == 200
        both = {"text": ["Good morning, how are you today?", "Bonjour, comment allez-vous ?"]}
        await client.post("/translate", json={**both, "target_lang": "de"})
    models = [entry["model"] for entry in logs if entry["event"] == "request"]
    assert models == ["ui", "fake-model", "de", "de,fake-model"]
    metrics = (await client.get("/metrics")).text
    # Counted from the same field as the log line: a list sent to two models counts for each.
    assert 'translate_adapter_requests_total{adapter="ui"} 1.0' in metrics
    assert 'translate_adapter_requests_total{adapter="base"} 2.0' in metrics
    assert 'translate_adapter_requests_total{adapter="de"} 2.0' in metrics


async def test_streamed_translation_uses_the_adapter(client, engine):
    response = await client.post("/translate", json={**EN_DE, "stream": True})
    assert response.status_code == 200
    assert "GOOD" in response.text
    assert adapters_used(engine) == ["de"]


async def test_openai_lists_each_adapter_with_its_parent_and_serves_it_by_name(
    make_app, loras, engine
):
    async with served(make_app(lora=loras)) as url:
        client = openai.AsyncOpenAI(base_url=f"{url}/v1", api_key="x", max_retries=0)
        models = {m.id: m for m in (await client.models.list()).data}
        assert set(models) == {"fake-model", "de", "from-en", "ui"}
        assert models["ui"].parent == "fake-model"  # type: ignore[attr-defined]
        assert models["fake-model"].parent is None  # type: ignore[attr-defined]
        assert (await client.models.retrieve("de")).id == "de"
        chat = await client.chat.completions.create(
            model="ui", messages=[{"role": "user", "content": "hello"}], max_tokens=8
        )
        assert chat.model == "ui"
        legacy = await client.completions.create(model="de", prompt="hello", max_tokens=4)
        assert legacy.model == "de"
        answer = await client.responses.create(model="from-en", input="hello", max_output_tokens=8)
        assert answer.model == "from-en"
        async with client.responses.stream(
            model="ui", input="hello", max_output_tokens=8
        ) as events:
            streamed = await events.get_final_response()
        assert streamed.model == "ui"
        assert adapters_used(engine) == ["ui", "de", "from-en", "ui"]
        with pytest.raises(openai.NotFoundError) as caught:
            await client.chat.completions.create(
                model="gone", messages=[{"role": "user", "content": "hi"}]
            )
        assert caught.value.code == "model_not_found"
        with pytest.raises(openai.NotFoundError):
            await client.models.retrieve("gone")


async def test_deepl_and_libretranslate_route_by_the_same_rules(make_app, loras, engine):
    async with served(make_app(lora=loras)) as url:
        translator = deepl.Translator("any-key", server_url=url)
        result = await asyncio.to_thread(
            translator.translate_text, "Good morning", source_lang="EN", target_lang="FR"
        )
        assert result.text == "GOOD MORNING"
        libre = LibreTranslateAPI(url + "/libretranslate/")
        assert await asyncio.to_thread(libre.translate, "Good evening", "en", "de") == (
            "GOOD EVENING"
        )
    assert adapters_used(engine) == ["from-en", "de"]


async def start_failure(app) -> str:
    """Why the app did not start (alone, or inside Litestar's exception group)."""
    with pytest.raises(Exception) as failed:  # noqa: PT011 - its type is checked below
        async with running(app):
            pass
    found = failed.value
    while isinstance(found, BaseExceptionGroup):
        found = found.exceptions[0]
    assert isinstance(found, SettingsError), repr(found)
    return str(found)


async def test_a_bad_adapter_stops_the_start(make_app, tmp_path):
    assert "no LoRA adapter" in await start_failure(make_app(lora=[f"x={tmp_path}"]))


async def test_more_adapters_than_max_loras_stop_the_start(make_app, loras):
    assert "--max-loras" in await start_failure(make_app(lora=loras, max_loras=2))


async def test_an_adapter_above_the_largest_rank_stops_the_start(make_app, tmp_path):
    big = fake_adapter_dir(tmp_path, "big", rank=64)
    failure = await start_failure(make_app(lora=[f"big={big}"], max_lora_rank=16))
    assert "rank 64" in failure


async def test_the_quality_guards_retry_asks_the_same_adapter(make_app, loras, engine):
    # The engine double's answer is the source upper-cased: the guard calls it an echo.
    async with running(make_app(lora=loras, quality_guard=True)) as client:
        answer = (await client.post("/translate", json=EN_DE)).json()
    assert answer["model"] == "de"
    retry = engine.requests[1][2]
    assert retry.temperature > 0  # the retry's own sampling
    assert adapters_used(engine) == ["de", "de"]
