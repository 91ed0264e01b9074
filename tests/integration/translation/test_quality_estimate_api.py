"""The quality estimate over HTTP: every /translate answer says how far to trust it
(`quality_estimate`, `needs_review`), from the engine double's own log probabilities and the
guard's findings; `candidates` keeps the best estimated of several answers, `min_quality`
translates again what is estimated under it, and the log line and /metrics carry it all."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from structlog.testing import capture_logs

from translate_server.inference.engine import SamplingOptions

from tests.support.estimate_models import estimate_models
from tests.support.fakes import _SOURCE, FakeEngine
from tests.support.harness import AppClient, running

GERMAN = {
    "The file was saved.": "Die Datei wurde gespeichert.",
    "Open the door.": "Öffne die Tür.",
    "Close the window.": "Schließe das Fenster.",
}
# How sure the double is of what it writes (the log probability of every token).
SURE, UNSURE = -0.05, -3.0


@pytest.fixture
def models(tmp_path: Path) -> str:
    return estimate_models(tmp_path)


def source_of(prompt: str) -> str:
    return _SOURCE.search(prompt).group(1)  # type: ignore[union-attr]


def translator(prompt: str, options: SamplingOptions) -> str:
    """A faithful translation when greedy; sampled answers say so (`Zweifel`)."""
    text = source_of(prompt)
    found = " ".join(GERMAN.get(line, line.upper()) for line in [text])
    return found if options.temperature == 0 else f"{found} Zweifel"


async def translate(client: AppClient, text, **extra) -> dict:  # type: ignore[no-untyped-def]
    response = await client.post(
        "/translate", json={"text": text, "source_lang": "en", "target_lang": "de", **extra}
    )
    assert response.status_code == 200, response.text
    return response.json()


def engine_with(sureness) -> FakeEngine:  # type: ignore[no-untyped-def]
    engine = FakeEngine(responder=translator)
    engine.logprob_of = sureness
    return engine


async def test_every_translation_has_an_estimate_and_a_batch_one_each(
    make_app, models: str
) -> None:
    engine = engine_with(lambda answer: SURE if "Datei" in answer else UNSURE)
    async with running(
        make_app(engine, quality_guard=True, quality_estimate_models=models)
    ) as client:
        one = await translate(client, "The file was saved.")
        batch = await translate(client, ["The file was saved.", "Open the door."])
    assert 0.0 <= one["quality_estimate"] <= 1.0 and one["needs_review"] is False
    assert len(batch["quality_estimate"]) == len(batch["needs_review"]) == 2
    sure, unsure = batch["quality_estimate"]
    assert sure == one["quality_estimate"]  # the same engine output, the same estimate
    assert sure > unsure
    assert batch["needs_review"] == [False, True]
    # Every engine request asked for the sampled token's log probability.
    assert all(options.logprobs == 0 for _, _, options in engine.requests)


async def test_the_estimate_is_the_same_for_the_same_answer_cached_or_not(
    make_app, models: str
) -> None:
    engine = engine_with(lambda answer: -0.6)
    async with running(
        make_app(engine, quality_guard=True, quality_estimate_models=models)
    ) as client:
        first = await translate(client, "Open the door.")
        again = await translate(client, "Open the door.")  # from the cache
    assert len(engine.requests) == 1
    assert again["quality_estimate"] == first["quality_estimate"]


async def test_an_echo_is_estimated_low_and_needs_review(make_app, models: str) -> None:
    engine = FakeEngine(responder=lambda prompt, options: source_of(prompt))
    engine.logprob_of = lambda answer: SURE  # a model sure of its echo
    async with running(
        make_app(engine, quality_guard=True, quality_estimate_models=models)
    ) as client:
        echoed = await translate(client, "The file was saved.")
        engine.responder = translator
        good = await translate(client, "Close the window.")
    assert echoed["warnings"] == ["echo"] and echoed["needs_review"] is True
    assert echoed["quality_estimate"] < good["quality_estimate"]


async def test_candidates_return_the_best_estimated_answer(make_app, models: str) -> None:
    # The greedy answer is unsure; the double is sure of its second sampled candidate only.
    engine = engine_with(lambda answer: SURE if answer.endswith("#1") else UNSURE)
    async with running(
        make_app(engine, quality_guard=True, quality_estimate_models=models)
    ) as client:
        body = await translate(client, "Open the door.", candidates=3)
        plain = await translate(client, "Close the window.")
    assert body["translation"] == "Öffne die Tür. Zweifel #1"
    # The greedy request, then one request of two sampled choices.
    assert [options.n for _, _, options in engine.requests[:2]] == [1, 2]
    sampled = engine.requests[1][2]
    assert sampled.temperature > 0 and sampled.seed is not None
    assert plain["translation"] == "Schließe das Fenster."  # one candidate: the greedy one


async def test_min_quality_translates_again_and_keeps_the_better_estimate(
    make_app, models: str
) -> None:
    engine = engine_with(lambda answer: SURE if "Zweifel" in answer else UNSURE)
    async with running(
        make_app(engine, quality_guard=True, quality_estimate_models=models)
    ) as client:
        with capture_logs() as logs:
            low = await translate(client, "Open the door.")
            wanted = await translate(client, "Open the door.", min_quality=0.9)
        metrics = (await client.get("/metrics")).text
    assert low["translation"] == "Öffne die Tür." and low["needs_review"] is True
    # The cached greedy answer is under the floor: translated again, a sampled one kept.
    assert wanted["translation"].startswith("Öffne die Tür. Zweifel")
    assert wanted["quality_estimate"] > low["quality_estimate"]
    assert len(engine.requests) == 3  # greedy (cached), greedy again, two sampled choices
    assert engine.requests[2][2].n == 2
    line = [log for log in logs if log["event"] == "request"][-1]
    assert line["quality_improved"] == 1
    assert line["quality_estimates"] == [wanted["quality_estimate"]]
    assert 'translate_quality_improved_total{route="/translate"} 1.0' in metrics


async def test_min_quality_keeps_the_first_answer_when_the_retry_is_no_better(
    make_app, models: str
) -> None:
    engine = engine_with(lambda answer: UNSURE)
    async with running(
        make_app(engine, quality_guard=True, quality_estimate_models=models)
    ) as client:
        body = await translate(client, "Open the door.", min_quality=0.99)
    assert body["translation"] == "Öffne die Tür."
    assert body["needs_review"] is True
    assert body["usage"]["completion_tokens"] > 3  # the three tokens of each answer, both counted


async def test_the_log_line_and_the_histogram_carry_the_estimates(make_app, models: str) -> None:
    engine = engine_with(lambda answer: SURE if "Datei" in answer else UNSURE)
    async with running(
        make_app(engine, quality_guard=True, quality_estimate_models=models)
    ) as client:
        with capture_logs() as logs:
            body = await translate(client, ["The file was saved.", "Open the door."])
        metrics = (await client.get("/metrics")).text
    line = next(log for log in logs if log["event"] == "request")
    assert line["quality_estimates"] == body["quality_estimate"]
    assert line["needs_review"] == [False, True]
    assert 'translate_quality_estimate_count{needs_review="true",route="/translate"} 1.0' in metrics
    assert (
        'translate_quality_estimate_count{needs_review="false",route="/translate"} 1.0' in metrics
    )


async def test_the_signals_are_returned_when_asked_for(make_app, models: str) -> None:
    engine = engine_with(lambda answer: -0.5)
    async with running(
        make_app(engine, quality_guard=True, quality_estimate_models=models)
    ) as client:
        body = await translate(
            client, "The file was saved.\n\nOpen the door.", quality_signals=True
        )
        plain = await translate(client, "Close the window.")
    signals = body["quality_signals"]
    assert signals["features"]["mean_logprob"] == -0.5
    assert [answer["source_chars"] for answer in signals["answers"]] == [19, 14]
    assert all(answer["tokens"] > 0 for answer in signals["answers"])
    assert "quality_signals" not in plain


async def test_a_stream_sends_the_estimate_in_its_last_event(make_app, models: str) -> None:
    engine = engine_with(lambda answer: SURE)
    async with running(
        make_app(engine, quality_guard=True, quality_estimate_models=models)
    ) as client:
        async with client.stream(
            "POST",
            "/translate",
            json={
                "text": "The file was saved.",
                "source_lang": "en",
                "target_lang": "de",
                "stream": True,
            },
        ) as response:
            assert response.status_code == 200
            events = await _events(response)
        body = await translate(client, "The file was saved.")  # the stream's answer, cached
    final = events[-2]
    assert 0.0 < final["quality_estimate"] <= 1.0 and final["needs_review"] is False
    assert final["quality_estimate"] == body["quality_estimate"]
    assert all("quality_estimate" not in event for event in events[:-2])


async def test_what_a_stream_cannot_do_is_refused(make_app, models: str) -> None:
    async with running(make_app(FakeEngine(), quality_estimate_models=models)) as client:
        for extra in ({"candidates": 2}, {"min_quality": 0.5}):
            response = await client.post(
                "/translate",
                json={"text": "Hi there", "target_lang": "de", "stream": True, **extra},
            )
            assert response.status_code == 400, response.text
            assert response.json()["error"]["param"] == next(iter(extra))
        too_many = await client.post(
            "/translate", json={"text": "Hi", "target_lang": "de", "candidates": 5}
        )
    assert too_many.status_code == 400


async def test_an_exact_memory_match_is_one(make_app, models: str) -> None:
    async with running(
        make_app(FakeEngine(responder=translator), quality_estimate_models=models)
    ) as client:
        made = await client.post("/memories", json={"name": "product"})
        memory = made.json()["id"]
        added = await client.post(
            f"/memories/{memory}/import",
            files={"file": ("m.csv", b"en,de\nSave the file.,Speichern Sie die Datei.\n")},
        )
        assert added.status_code == 200, added.text
        body = await translate(client, "Save the file.", memory=memory)
    assert body["translation"] == "Speichern Sie die Datei."
    assert body["quality_estimate"] == 1.0 and body["needs_review"] is False


async def _events(response: httpx.Response) -> list:  # type: ignore[type-arg]
    events = []
    async for line in response.aiter_lines():
        if line.startswith("data: "):
            data = line[len("data: ") :]
            events.append(data if data == "[DONE]" else json.loads(data))
    return events
