from __future__ import annotations

from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient


async def test_source_language_is_detected_when_omitted(
    client: AppClient, engine: FakeEngine
) -> None:
    response = await client.post(
        "/translate",
        json={"text": "Die Besprechung wurde auf Donnerstag verschoben.", "target_lang": "en"},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["source_lang"] == "de"
    assert body["detected_source_lang"]["language"] == "de"
    assert 0.5 < body["detected_source_lang"]["confidence"] <= 1.0
    assert "from German to English" in engine.decode(engine.requests[0][1])


async def test_auto_detects_each_text_of_a_list(client: AppClient) -> None:
    response = await client.post(
        "/translate",
        json={
            "text": ["La réunion a été déplacée à jeudi.", "Spotkanie zostało przeniesione."],
            "source_lang": "auto",
            "target_lang": "en",
        },
    )
    body = response.json()
    assert body["source_lang"] == "auto"
    assert [d["language"] for d in body["detected_source_langs"]] == ["fr", "pl"]


async def test_given_source_is_not_detected(client: AppClient) -> None:
    body = (
        await client.post(
            "/translate", json={"text": "Guten Morgen", "source_lang": "de", "target_lang": "en"}
        )
    ).json()
    assert body["source_lang"] == "de" and "detected_source_lang" not in body


async def test_undetectable_text_asks_for_source_lang(
    client: AppClient, engine: FakeEngine
) -> None:
    response = await client.post(
        "/translate", json={"text": ["Guten Morgen, wie geht es?", "12345"], "target_lang": "en"}
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "language_not_detected" and error["param"] == "text[1]"
    assert engine.requests == []


async def test_detect_route(client: AppClient, engine: FakeEngine) -> None:
    response = await client.post(
        "/detect", json={"text": "Où est la gare ? Je crois que je suis perdu dans cette ville."}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["language"] == "fr" and body["name"] == "French"
    assert body["candidates"][0] == {"language": "fr", "confidence": body["confidence"]}
    assert engine.requests == []
    bad = await client.post("/detect", json={"text": ""})
    assert bad.status_code == 400 and bad.json()["error"]["param"] == "text"


async def test_languages_route(client: AppClient) -> None:
    body = (await client.get("/languages")).json()
    codes = [language["code"] for language in body["languages"]]
    assert len(codes) == 75 and "de" in codes
    assert {"code": "uk", "name": "Ukrainian"} in body["languages"]
