"""/translate/corrections: a machine translation corrected by a person goes into the memory at
once (the same request is then an exact match that never reaches the engine), and is counted
by language pair in /metrics and named in the request's log line."""

from __future__ import annotations

import pytest
from structlog.testing import capture_logs

from tests.integration.memory.test_memory_api import make_memory
from tests.integration.memory.test_memory_translate_api import translate
from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, running

# The stores' contract: every test here runs on SQLite and on PostgreSQL.
pytestmark = pytest.mark.usefixtures("backend")

SOURCE = "The printer is out of paper."


def correction(memory_id: str, machine: str, corrected: str, **fields: str) -> dict[str, str]:
    return {
        "source": SOURCE,
        "translation": machine,
        "corrected": corrected,
        "source_lang": "en",
        "target_lang": "de",
        "memory": memory_id,
        **fields,
    }


async def send(client: AppClient, body: dict[str, str], **headers: str):  # type: ignore[no-untyped-def]
    return await client.post("/translate/corrections", json=body, headers=headers)


async def test_a_correction_becomes_the_exact_match(make_app, engine: FakeEngine) -> None:
    async with running(make_app()) as client:
        memory_id = await make_memory(client)
        machine = (await translate(client, SOURCE, memory_id))["translation"]
        assert len(engine.requests) == 1
        fixed = "Der Drucker hat kein Papier mehr."
        with capture_logs() as logs:
            answer = await send(client, correction(memory_id, machine, fixed))
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["created"] is True and body["changed"] is True
        assert 0 <= body["similarity"] < 100
        assert body["entry"]["target"] == fixed and body["memory"]["entries"] == 1

        again = await translate(client, SOURCE, memory_id)
        assert again["translation"] == fixed
        assert again["memory_match"]["match"] == "exact"
        assert len(engine.requests) == 1  # answered from the memory

        # Confirmed as it is now: the entry kept, counted apart.
        confirmed = await send(client, correction(memory_id, fixed, fixed))
        assert confirmed.json()["created"] is False and confirmed.json()["changed"] is False
        assert confirmed.json()["similarity"] == 100.0
        metrics = (await client.get("/metrics")).text
    line = next(log for log in logs if log["event"] == "request")
    assert line["route"] == "/translate/corrections" and line["correction"] == "edited"
    assert (line["correction_source_lang"], line["correction_target_lang"]) == ("en", "de")
    assert line["correction_memory"] == memory_id
    labels = 'source_lang="en",target_lang="de"'
    assert f'translate_corrections_total{{kind="edited",{labels}}} 1.0' in metrics
    assert f'translate_corrections_total{{kind="confirmed",{labels}}} 1.0' in metrics
    assert "translate_correction_similarity_count 1.0" in metrics


async def test_bad_corrections_are_refused(make_app) -> None:
    alice, bob = {"authorization": "Bearer alice"}, {"authorization": "Bearer bob"}
    async with running(make_app(api_key=["alice", "bob"])) as client:
        memory_id = await make_memory(client, **alice)
        others = await send(client, correction(memory_id, "x", "Papier fehlt."), **bob)
        assert others.status_code == 404
        assert others.json()["error"] == {
            "message": "No translation memory with this id (for this API key).",
            "type": "invalid_request_error",
            "param": "memory",
            "code": "memory_not_found",
        }
        unknown = await send(client, correction("mem_0000", "x", "Papier fehlt."), **alice)
        assert unknown.status_code == 404 and unknown.json()["error"]["param"] == "memory"

        body = correction(memory_id, "x", "Papier fehlt.")
        del body["corrected"]
        missing = await send(client, body, **alice)
        assert missing.status_code == 400 and missing.json()["error"]["param"] == "corrected"
        auto = await send(client, correction(memory_id, "x", "y", source_lang="auto"), **alice)
        assert auto.status_code == 400 and auto.json()["error"]["param"] == "source_lang"
        blank = await send(client, correction(memory_id, "x", "  \n "), **alice)
        assert blank.status_code == 400 and blank.json()["error"]["param"] == "corrected"
        assert (await client.get(f"/memories/{memory_id}", headers=alice)).json()["entries"] == 0
        metrics = (await client.get("/metrics", headers=alice)).text
    assert "translate_corrections_total{" not in metrics
