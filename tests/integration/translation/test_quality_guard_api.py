"""The quality guard over HTTP, with engine doubles that fail the classic ways: an echo, an
empty answer, a lost placeholder, the wrong language. One retry, then `warnings`."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable

import pytest
from structlog.testing import capture_logs

from translate_server.inference.engine import SamplingOptions

from tests.support.fakes import _SOURCE, FakeEngine
from tests.support.harness import AppClient, running

GERMAN = "Die Datei wurde erfolgreich gespeichert und kann jetzt geöffnet werden"


def source_of(prompt: str) -> str:
    return _SOURCE.search(prompt).group(1)  # type: ignore[union-attr]


def retried(options: SamplingOptions) -> bool:
    return options.temperature > 0


def echo(prompt: str, options: SamplingOptions) -> str:
    return source_of(prompt)


def echo_then_german(prompt: str, options: SamplingOptions) -> str:
    return GERMAN if retried(options) else source_of(prompt)


def empty(prompt: str, options: SamplingOptions) -> str:
    return ""


def drops_tokens(prompt: str, options: SamplingOptions) -> str:
    return re.sub(r" ?\{\d+\}", "", source_of(prompt)).replace("Delete", "Löschen")


def keeps_tokens(prompt: str, options: SamplingOptions) -> str:
    return source_of(prompt).replace("Delete", "Löschen").replace("files", "Dateien")


def german(prompt: str, options: SamplingOptions) -> str:
    return GERMAN


@pytest.fixture
async def guarded(make_app) -> Callable[..., AsyncIterator[AppClient]]:
    def start(responder: Callable[[str, SamplingOptions], str]):
        engine = FakeEngine(responder=responder)
        return running(make_app(engine, quality_guard=True)), engine

    return start


async def translate(client: AppClient, text, target: str = "de", **extra) -> dict:
    response = await client.post(
        "/translate", json={"text": text, "source_lang": "en", "target_lang": target, **extra}
    )
    assert response.status_code == 200, response.text
    return response.json()


async def test_an_echo_is_retried_and_the_better_answer_sent(guarded) -> None:
    app, engine = guarded(echo_then_german)
    async with app as client:
        body = await translate(client, "The file was saved")
        metrics = (await client.get("/metrics")).text
    assert body["translation"] == GERMAN
    assert "warnings" not in body
    assert len(engine.requests) == 2
    retry = engine.requests[1][2]
    assert (retry.temperature, retry.seed, retry.repetition_penalty) == (0.3, 1, 1.15)
    assert body["usage"]["completion_tokens"] == 4 + len(GERMAN.split())
    assert 'translate_quality_failures_total{kind="echo",route="/translate"} 1.0' in metrics
    assert 'translate_quality_retries_total{route="/translate"} 1.0' in metrics
    assert "translate_quality_warnings_total{" not in metrics


async def test_an_echo_twice_is_sent_with_a_warning_and_logged(guarded) -> None:
    app, engine = guarded(echo)
    async with app as client:
        with capture_logs() as logs:
            body = await translate(client, "The file was saved")
        metrics = (await client.get("/metrics")).text
    assert body["translation"] == "The file was saved"
    assert body["warnings"] == ["echo"]
    assert len(engine.requests) == 2
    line = next(log for log in logs if log["event"] == "request")
    assert line["quality_failures"] == ["echo"] and line["warnings"] == ["echo"]
    assert line["quality_retries"] == 1
    assert 'translate_quality_warnings_total{kind="echo",route="/translate"} 1.0' in metrics


def runs_away_then_german(prompt: str, options: SamplingOptions) -> str:
    return GERMAN if retried(options) else "Die Datei " * 400


async def test_an_answer_that_runs_away_is_retried(guarded) -> None:
    app, engine = guarded(runs_away_then_german)
    async with app as client:
        with capture_logs() as logs:
            body = await translate(client, "The file was saved")
    # Cut off at the service's own budget (three times the source): a runaway, tried again.
    assert engine.requests[0][2].max_tokens < 400
    assert len(engine.requests) == 2
    assert body["translation"] == GERMAN and "warnings" not in body
    line = next(log for log in logs if log["event"] == "request")
    assert line["quality_failures"] == ["truncated"] and line["quality_retries"] == 1


async def test_an_answer_cut_off_at_the_caller_s_max_tokens_is_not_retried(guarded) -> None:
    app, engine = guarded(runs_away_then_german)
    async with app as client:
        body = await translate(client, "The file was saved", max_tokens=3)
    assert len(engine.requests) == 1
    assert body["translation"] == "Die Datei Die"


async def test_never_an_empty_answer(guarded) -> None:
    app, engine = guarded(empty)
    async with app as client:
        body = await translate(client, "Good morning")
    assert body["translation"] == "Good morning"
    assert body["warnings"] == ["empty"]
    assert len(engine.requests) == 2


async def test_the_model_sees_tokens_and_the_answer_gets_the_placeholders_back(guarded) -> None:
    app, engine = guarded(keeps_tokens)
    async with app as client:
        body = await translate(client, "Delete %(count)d files from %s?")
    prompt = engine.decode(engine.requests[0][1])
    assert "Delete {1} files from {2}?" in prompt and "%(count)d" not in prompt
    assert body["translation"] == "Löschen %(count)d Dateien from %s?"
    assert "warnings" not in body and len(engine.requests) == 1


async def test_a_lost_placeholder_is_appended_and_warned(guarded) -> None:
    app, engine = guarded(drops_tokens)
    async with app as client:
        body = await translate(client, "Delete %s now")
    assert body["translation"] == "Löschen now %s"
    assert body["warnings"] == ["placeholders_lost"]
    assert len(engine.requests) == 2


async def test_the_wrong_language_is_caught(guarded) -> None:
    app, engine = guarded(german)
    async with app as client:
        right = await translate(client, "The file was saved and can be opened now")
        wrong = await translate(client, "The file was saved and can be opened now", "fr")
    assert "warnings" not in right
    assert wrong["translation"] == GERMAN
    assert wrong["warnings"] == ["wrong_language"]
    assert len(engine.requests) == 1 + 2


async def test_a_batch_has_a_list_of_warnings_per_text(guarded) -> None:
    app, _ = guarded(echo)
    async with app as client:
        body = await translate(client, ["Good morning", "12"])
    assert body["warnings"] == [["echo"], []]


async def test_a_stream_warns_in_its_last_event_without_retrying(guarded) -> None:
    app, engine = guarded(echo)
    async with (
        app as client,
        client.stream(
            "POST",
            "/translate",
            json={"text": "Good morning", "source_lang": "en", "target_lang": "de", "stream": True},
        ) as response,
    ):
        events = [
            json.loads(line[6:])
            for line in [x async for x in response.aiter_lines()]
            if line.startswith("data: {")
        ]
    assert "".join(e["delta"] for e in events) == "Good morning"
    assert events[-1]["warnings"] == ["echo"]
    assert len(engine.requests) == 1


async def test_compatible_apis_carry_the_warnings(guarded) -> None:
    app, _ = guarded(echo)
    async with app as client:
        deepl = (
            await client.post(
                "/v2/translate",
                json={"text": ["Good morning", "42"], "target_lang": "DE", "source_lang": "EN"},
            )
        ).json()
        libre = (
            await client.post(
                "/libretranslate/translate",
                json={"q": "Good morning", "source": "en", "target": "de"},
            )
        ).json()
    assert deepl["translations"][0]["warnings"] == ["echo"]
    assert "warnings" not in deepl["translations"][1]
    assert libre == {"translatedText": "Good morning", "warnings": ["echo"]}


async def test_a_failed_answer_is_not_cached(guarded) -> None:
    app, engine = guarded(echo)
    async with app as client:
        first = await translate(client, "Good morning")
        again = await translate(client, "Good morning")
    assert first["warnings"] == again["warnings"] == ["echo"]
    assert len(engine.requests) == 4


async def test_without_the_guard_the_answer_is_the_model_s(make_app) -> None:
    engine = FakeEngine(responder=echo)
    async with running(make_app(engine, quality_guard=False)) as client:
        body = await translate(client, "Delete %s now")
    assert body["translation"] == "Delete %s now" and "warnings" not in body
    assert len(engine.requests) == 1
