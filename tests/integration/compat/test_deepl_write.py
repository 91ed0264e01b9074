"""DeepL Write through the official client: rephrase (with a writing style or a tone as a
fenced instruction) and correct on an instruction-tuned model; a clear 400 on a base model."""

from __future__ import annotations

import asyncio

import deepl
import pytest

from tests.support.fakes import FakeEngine
from tests.support.harness import served

BASE = "google/gemma-3-270m"


async def _call(function, *args, **kwargs):
    return await asyncio.to_thread(function, *args, **kwargs)


def _prompts(engine: FakeEngine) -> list[str]:
    return [engine.decode(ids) for _, ids, _ in engine.requests]


async def test_rephrase_with_a_style_and_with_a_tone(make_app, engine: FakeEngine) -> None:
    async with served(make_app()) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        one = await _call(client.rephrase_text, "This is a sentence in English.", style="business")
        assert one.text == "THIS IS A SENTENCE IN ENGLISH."
        assert (one.detected_source_language, one.target_language) == ("en", "en")
        many = await _call(
            client.rephrase_text,
            ["This is a sentence in English.", "Das ist ein ganz normaler deutscher Satz."],
            target_lang="EN-US",
            tone="prefer_friendly",
        )
        # The double answers the German text in German, not the English asked for: the
        # guard asks once more, then sends the text back as it came.
        assert [r.text for r in many] == [
            "THIS IS A SENTENCE IN ENGLISH.",
            "Das ist ein ganz normaler deutscher Satz.",
        ]
        assert [r.detected_source_language for r in many] == ["en", "de"]
        assert {r.target_language for r in many} == {"en-US"}
        usage = await _call(client.get_usage)
        assert usage.character.count == 30 + 30 + 41
    business, friendly, *_ = _prompts(engine)
    assert "Improve the English text" in business
    assert "<instruction>Write in a clear, professional business style.</instruction>" in business
    assert "<instruction>Use a warm, friendly tone.</instruction>" in friendly


async def test_correct_changes_only_spelling_and_grammar(make_app, engine: FakeEngine) -> None:
    async with served(make_app()) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        result = await _call(client.correct_text, "This are a sentense in English.")
    assert result.text == "THIS ARE A SENTENSE IN ENGLISH."
    (prompt,) = _prompts(engine)
    assert "Correct the spelling, grammar and punctuation" in prompt
    assert "<instruction>" not in prompt
    # The answer's budget is sized by the text (12 tokens of the double's, with its line
    # breaks), not by the whole prompt; it ends at a paragraph the text does not have.
    options = engine.requests[0][2]
    assert options.max_tokens == 3 * 12 + 16
    assert "\n\n" in options.stop


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"style": "business", "tone": "friendly"}, "not both"),
        ({"style": "poetic"}, "writing_style"),
        ({"tone": "grumpy"}, "tone"),
    ],
)
async def test_bad_settings_are_a_400(make_app, engine: FakeEngine, options, message) -> None:
    async with served(make_app()) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        with pytest.raises(deepl.DeepLException, match=message) as refused:
            await _call(client.rephrase_text, "This is a sentence in English.", **options)
    assert refused.value.http_status_code == 400
    assert engine.requests == []


async def test_a_base_model_cannot_write(make_app) -> None:
    engine = FakeEngine(model=BASE, chat_template=False)
    async with served(make_app(engine, served_model_name=BASE)) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        for call in (client.rephrase_text, client.correct_text):
            with pytest.raises(deepl.DeepLException, match="cannot follow instructions") as no:
                await _call(call, "This is a sentence in English.")
            assert no.value.http_status_code == 400
    assert engine.requests == []
