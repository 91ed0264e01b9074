"""`/translate`'s `instructions`: fenced into an instruction-tuned model's prompt, refused
with a 400 by a base model, bounded as DeepL bounds its custom instructions."""

from __future__ import annotations

from tests.support.fakes import FakeEngine
from tests.support.harness import running

BASE = "google/gemma-3-270m"


async def test_instructions_reach_the_prompt(client, engine: FakeEngine) -> None:
    response = await client.post(
        "/translate",
        json={
            "text": "Hello",
            "source_lang": "en",
            "target_lang": "de",
            "instructions": ["Use a friendly tone"],
        },
    )
    assert response.status_code == 200, response.text
    assert response.json()["translation"] == "HELLO"
    prompt = engine.decode(engine.requests[0][1])
    assert "<instruction>Use a friendly tone</instruction>" in prompt


async def test_limits_are_a_400(client, engine: FakeEngine) -> None:
    for instructions in (["x"] * 11, ["x" * 301], [""]):
        response = await client.post(
            "/translate",
            json={
                "text": "Hi",
                "source_lang": "en",
                "target_lang": "de",
                "instructions": instructions,
            },
        )
        assert response.status_code == 400, response.text
        assert response.json()["error"]["param"].startswith("instructions")
    assert engine.requests == []


async def test_a_base_model_refuses_them(make_app) -> None:
    engine = FakeEngine(model=BASE, chat_template=False)
    async with running(make_app(engine, served_model_name=BASE)) as client:
        response = await client.post(
            "/translate",
            json={"text": "Hi", "source_lang": "en", "target_lang": "de", "instructions": ["a"]},
        )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "instructions_not_supported" and error["param"] == "instructions"
    assert "cannot follow instructions" in error["message"]
    assert engine.requests == []
