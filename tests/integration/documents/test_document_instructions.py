"""Instructions on documents. DeepL's custom instructions and style rules, through the official
client: resolved at upload, kept with the job and fenced into every batch's prompt as on
/v2/translate; a base model refuses them at upload with the same 400. Ours, `instructions` on
/translate/document, as on /translate."""

from __future__ import annotations

import asyncio
import io

import deepl
import httpx
import pytest

from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, read_until, running, served

pytestmark = pytest.mark.usefixtures("quick_polls")

BASE = "google/gemma-3-270m"
SRT = (
    b"1\n00:00:01,000 --> 00:00:02,500\nGood morning, everyone.\n\n"
    b"2\n00:00:03,000 --> 00:00:04,000\nWelcome to the talk.\n"
)


async def _call(function, *args, **kwargs):
    return await asyncio.to_thread(function, *args, **kwargs)


def _prompts(engine: FakeEngine) -> list[str]:
    return [engine.decode(ids) for _, ids, _ in engine.requests]


async def test_a_documents_instructions_and_style_rule_reach_every_prompt(
    make_app, engine: FakeEngine
) -> None:
    async with served(make_app()) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        rule = await _call(
            client.create_style_rule,
            "Talks",
            "de",
            custom_instructions=[{"label": "Tone", "prompt": "Use a friendly tone"}],
        )
        out = io.BytesIO()
        status = await _call(
            client.translate_document,
            io.BytesIO(SRT),
            out,
            source_lang="EN",
            target_lang="DE",
            filename="talk.srt",
            style_rule=rule,
            # The client names no parameter for them on documents: they go as form fields.
            extra_body_parameters={"custom_instructions": ["Be brief", "Keep names as they are"]},
        )
    assert status.ok
    assert b"GOOD MORNING, EVERYONE." in out.getvalue()
    prompts = _prompts(engine)
    assert prompts
    for prompt in prompts:
        # The rule's first, then the request's own, each fenced, in every batch.
        rule_at = prompt.index("<instruction>Use a friendly tone</instruction>")
        brief_at = prompt.index("<instruction>Be brief</instruction>")
        assert rule_at < brief_at
        assert "<instruction>Keep names as they are</instruction>" in prompt


async def test_a_document_without_instructions_has_none_in_its_prompt(
    make_app, engine: FakeEngine
) -> None:
    async with served(make_app()) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        await _call(
            client.translate_document,
            io.BytesIO(SRT),
            io.BytesIO(),
            target_lang="DE",
            filename="talk.srt",
        )
    assert engine.requests
    assert all("<instruction>" not in prompt for prompt in _prompts(engine))


async def test_a_documents_instructions_are_checked_at_upload(make_app) -> None:
    async with served(make_app()) as url:
        alice = deepl.DeepLClient("alice", server_url=url)
        bob = deepl.DeepLClient("bob", server_url=url)
        rule = await _call(alice.create_style_rule, "Talks", "de")
        upload = alice.translate_document_upload
        with pytest.raises(deepl.DeepLException, match="At most 10") as refused:
            await _call(
                upload,
                SRT,
                target_lang="DE",
                filename="talk.srt",
                extra_body_parameters={"custom_instructions": [f"rule {i}" for i in range(11)]},
            )
        assert refused.value.http_status_code == 400
        # By id: given the rule itself, the client checks its language before sending.
        with pytest.raises(deepl.DeepLException, match="style rule's language"):
            await _call(
                upload, SRT, target_lang="FR", filename="talk.srt", style_rule=rule.style_id
            )
        with pytest.raises(deepl.DeepLException, match="not found"):
            await _call(
                bob.translate_document_upload,
                SRT,
                target_lang="DE",
                filename="talk.srt",
                style_rule=rule.style_id,
            )


async def test_a_base_model_refuses_a_documents_instructions_at_upload(make_app) -> None:
    engine = FakeEngine(model=BASE, chat_template=False)
    async with served(make_app(engine, served_model_name=BASE)) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        rule = await _call(client.create_style_rule, "Talks", "de")
        for asked, param in (
            ({"extra_body_parameters": {"custom_instructions": ["Be brief"]}}, "instructions"),
            ({"style_rule": rule}, "style_id"),
        ):
            with pytest.raises(deepl.DeepLException, match="cannot follow instructions") as no:
                await _call(
                    client.translate_document_upload,
                    SRT,
                    target_lang="DE",
                    filename="talk.srt",
                    **asked,
                )
            assert no.value.http_status_code == 400 and param in str(no.value)
        assert engine.requests == []
        # Without them the base model translates the document as ever.
        out = io.BytesIO()
        await _call(
            client.translate_document, io.BytesIO(SRT), out, target_lang="DE", filename="talk.srt"
        )
    assert b"WELCOME TO THE TALK." in out.getvalue()


async def _submit(client: AppClient, instructions: list[str]) -> httpx.Response:
    return await client.post(
        "/translate/document",
        files={"file": ("talk.srt", SRT)},
        data={"target_lang": "de", "source_lang": "en", "instructions": instructions},
    )


async def test_our_document_route_takes_instructions(client: AppClient, engine: FakeEngine) -> None:
    submitted = await _submit(client, ["Be brief", "Keep names as they are"])
    assert submitted.status_code == 202, submitted.text
    status = (
        await read_until(
            lambda: client.get(submitted.json()["status_url"]),
            lambda response: response.json()["status"] in ("done", "error"),
        )
    ).json()
    assert status["status"] == "done", status
    result = await client.get(submitted.json()["result_url"])
    assert b"WELCOME TO THE TALK." in result.content
    prompts = _prompts(engine)
    assert prompts
    for prompt in prompts:
        assert "<instruction>Be brief</instruction>" in prompt
        assert "<instruction>Keep names as they are</instruction>" in prompt


async def test_our_document_routes_instructions_are_checked_at_upload(
    make_app, client: AppClient
) -> None:
    too_many = await _submit(client, [f"rule {i}" for i in range(11)])
    assert too_many.status_code == 400 and "At most 10" in too_many.json()["error"]["message"]
    empty = await _submit(client, ["Be brief", " "])
    assert empty.status_code == 400
    assert empty.json()["error"]["param"] == "instructions[1]"
    engine = FakeEngine(model=BASE, chat_template=False)
    async with running(make_app(engine, served_model_name=BASE)) as base:
        refused = await _submit(base, ["Be brief"])
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert error["code"] == "instructions_not_supported" and error["param"] == "instructions"
    assert engine.requests == []
