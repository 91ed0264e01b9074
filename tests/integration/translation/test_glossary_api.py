from __future__ import annotations

import re

from tests.support.harness import AppClient


def _glossary_following(prompt: str, options) -> str:
    """A model that translates by upper-casing and obeys the glossary in its instructions."""
    text = re.search(r"<source>\n(.*)\n</source>", prompt, re.DOTALL).group(1).upper()
    for term, required in re.findall(r"^- (.+?) => ([^<\n]+)", prompt, re.MULTILINE):
        text = re.sub(re.escape(term.upper()), required, text)
    return text


async def test_glossary_steers_the_model_and_reports_what_was_applied(
    client: AppClient, engine
) -> None:
    engine.responder = _glossary_following
    response = await client.post(
        "/translate",
        json={
            "text": "The cat sat on the mat.",
            "source_lang": "en",
            "target_lang": "de",
            "glossary": {"cat": "Katze", "mat": "Matte", "dog": "Hund"},
        },
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["translation"] == "THE Katze SAT ON THE Matte."
    assert body["glossary_applied"] == ["cat", "mat"]
    prompt = engine.decode(engine.requests[0][1])
    assert "- cat => Katze" in prompt and "dog" not in prompt  # only entries in the text


async def test_entries_the_model_ignored_are_not_reported(client: AppClient) -> None:
    body = (
        await client.post(
            "/translate",
            json={
                "text": "The cat sat.",
                "source_lang": "en",
                "target_lang": "de",
                "glossary": {"cat": "Katze"},
            },
        )
    ).json()
    assert body["glossary_applied"] == []


async def test_invalid_glossary(client: AppClient, engine) -> None:
    response = await client.post(
        "/translate",
        json={
            "text": "The cat.",
            "source_lang": "en",
            "target_lang": "de",
            "glossary": {"cat": ""},
        },
    )
    assert response.status_code == 400
    assert response.json()["error"]["param"] == "glossary.cat"
    assert engine.requests == []
