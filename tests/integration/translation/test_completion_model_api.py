"""A base model served through a completion family: /translate prompts it with few-shot text,
line by line, stopping at each line's end; the chat API refuses it with a 400."""

from __future__ import annotations

from tests.support.fakes import FakeEngine
from tests.support.harness import running

BASE_MODEL = "google/gemma-3-270m"


def base_engine() -> FakeEngine:
    return FakeEngine(model=BASE_MODEL, chat_template=False)


async def test_each_line_is_its_own_completion_prompt(make_app) -> None:
    engine = base_engine()
    async with running(make_app(engine, served_model_name=BASE_MODEL)) as client:
        response = await client.post(
            "/translate",
            json={
                "text": "Good night.\r\n\n  See you tomorrow!",
                "source_lang": "en",
                "target_lang": "de",
            },
        )
    assert response.status_code == 200, response.text
    # The fake continues past the line with another pair: the stop cut it off.
    assert response.json()["translation"] == "GOOD NIGHT.\r\n\n  SEE YOU TOMORROW!"
    prompts = sorted(engine.decode(ids) for _, ids, _ in engine.requests)
    assert [p.rsplit("\n", 2)[-2:] for p in prompts] == [
        ["English: Good night.", "German:"],
        ["English: See you tomorrow!", "German:"],
    ]
    assert all(p.startswith("English: Settings\nGerman: Einstellungen\n") for p in prompts)
    assert all(options.stop == ("\n",) for _, _, options in engine.requests)


async def test_a_streamed_translation_goes_line_by_line_too(make_app) -> None:
    engine = base_engine()
    async with running(make_app(engine, served_model_name=BASE_MODEL)) as client:
        response = await client.post(
            "/translate",
            json={"text": "one\ntwo", "source_lang": "en", "target_lang": "fr", "stream": True},
        )
    assert response.status_code == 200
    assert '"delta":"ONE"' in response.text and '"delta":"TWO"' in response.text
    assert len(engine.requests) == 2


async def test_the_chat_api_refuses_a_model_without_a_chat_template(make_app) -> None:
    engine = base_engine()
    async with running(make_app(engine, served_model_name=BASE_MODEL)) as client:
        response = await client.post(
            "/v1/chat/completions", json={"messages": [{"role": "user", "content": "hello"}]}
        )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "chat_not_supported" and error["param"] == "model"
    assert "/translate" in error["message"]
    # It names the fix: the command that serves the bundled instruction-tuned model.
    assert "translate-server serve --model HuggingFaceTB/SmolLM2-135M-Instruct" in error["message"]
    assert (
        "TRANSLATE_MODEL=HuggingFaceTB/SmolLM2-135M-Instruct docker compose up"
        in (error["message"])
    )
    assert engine.requests == []
