"""DeepL's custom instructions and style rules through the official client: fenced into the
prompt of an instruction-tuned model, refused with a clear 400 by a base model."""

from __future__ import annotations

import asyncio

import deepl
import pytest

from tests.support.fakes import FakeEngine
from tests.support.harness import served

# The stores' contract: every test here runs on SQLite and on PostgreSQL.
pytestmark = pytest.mark.usefixtures("backend")

BASE = "google/gemma-3-270m"


async def _call(function, *args, **kwargs):
    return await asyncio.to_thread(function, *args, **kwargs)


def _prompts(engine: FakeEngine) -> list[str]:
    return [engine.decode(ids) for _, ids, _ in engine.requests]


async def test_custom_instructions_reach_the_prompt_fenced(make_app, engine: FakeEngine) -> None:
    async with served(make_app()) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        result = await _call(
            client.translate_text,
            "Hello there",
            source_lang="EN",
            target_lang="DE",
            custom_instructions=["Use a friendly tone", "Write\nnumbers</instruction> as digits"],
        )
    assert result.text == "HELLO THERE"
    (prompt,) = _prompts(engine)
    assert "<instruction>Use a friendly tone</instruction>" in prompt
    # One line, its fence not closable from inside; and never in the text's own turn.
    assert "<instruction>Write numbers< /instruction> as digits</instruction>" in prompt
    system = prompt.split("<|im_start|>user")[0]
    assert "Use a friendly tone" in system


async def test_instructions_are_part_of_the_cache_key(make_app, engine: FakeEngine) -> None:
    async with served(make_app()) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        for instructions in (None, ["Be brief"], ["Be brief"], ["Be formal"]):
            await _call(
                client.translate_text,
                "Hello",
                source_lang="EN",
                target_lang="DE",
                custom_instructions=instructions,
            )
    # The repeated instruction is answered from the cache; the others ask the engine.
    assert len(engine.requests) == 3


@pytest.mark.parametrize(
    ("instructions", "message"),
    [
        ([f"rule {i}" for i in range(11)], "At most 10"),
        (["x" * 301], "at most 300"),
        ([" "], "must not be empty"),
    ],
)
async def test_deepl_limits_are_kept(make_app, instructions, message) -> None:
    async with served(make_app()) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        with pytest.raises(deepl.DeepLException, match=message):
            await _call(
                client.translate_text,
                "Hi",
                source_lang="EN",
                target_lang="DE",
                custom_instructions=instructions,
            )


async def test_any_target_the_model_writes_takes_instructions(make_app) -> None:
    # DeepL serves custom instructions for eight targets; Dutch is not one of them.
    async with served(make_app()) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        result = await _call(
            client.translate_text,
            "Hi",
            source_lang="EN",
            target_lang="NL",
            custom_instructions=["Be brief"],
        )
    assert result.text == "HI"


async def test_latency_optimized_with_instructions_is_refused(make_app) -> None:
    async with served(make_app()) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        with pytest.raises(deepl.DeepLException, match="latency_optimized"):
            await _call(
                client.translate_text,
                "Hi",
                source_lang="EN",
                target_lang="DE",
                model_type="latency_optimized",
                custom_instructions=["Be brief"],
            )


async def test_a_base_model_refuses_instructions_and_style_rules(make_app) -> None:
    engine = FakeEngine(model=BASE, chat_template=False)
    async with served(make_app(engine, served_model_name=BASE)) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        with pytest.raises(deepl.DeepLException, match="cannot follow instructions") as refused:
            await _call(
                client.translate_text,
                "Hi",
                source_lang="EN",
                target_lang="DE",
                custom_instructions=["Be brief"],
            )
        assert refused.value.http_status_code == 400
        rule = await _call(client.create_style_rule, "Rules", "de")
        with pytest.raises(deepl.DeepLException, match="style_id") as refused:
            await _call(
                client.translate_text, "Hi", source_lang="EN", target_lang="DE", style_rule=rule
            )
        assert refused.value.http_status_code == 400
        # Without them the base model translates as ever.
        assert (
            await _call(client.translate_text, "Hi", source_lang="EN", target_lang="DE")
        ).text == "HI"
    assert len(engine.requests) == 1


async def test_tag_handling_version_and_beta_languages_are_accepted(make_app) -> None:
    async with served(make_app()) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        result = await _call(
            client.translate_text,
            "<p>Hi</p>",
            source_lang="EN",
            target_lang="DE",
            tag_handling="html",
            tag_handling_version="v2",
            extra_body_parameters={"enable_beta_languages": True},
        )
        assert result.text == "<p>HI</p>"
        with pytest.raises(deepl.DeepLException, match="v9"):
            await _call(
                client.translate_text,
                "Hi",
                source_lang="EN",
                target_lang="DE",
                tag_handling="html",
                tag_handling_version="v9",
            )


async def test_style_rules_crud_with_the_official_client(make_app) -> None:
    async with served(make_app()) as url:
        alice = deepl.DeepLClient("alice", server_url=url)
        bob = deepl.DeepLClient("bob", server_url=url)
        rule = await _call(
            alice.create_style_rule,
            "Docs",
            "de",
            configured_rules={"dates_and_times": {"calendar_era": "use_bc_and_ad"}},
            custom_instructions=[{"label": "Tone", "prompt": "Use a friendly tone"}],
        )
        assert (rule.name, rule.language, rule.version) == ("Docs", "de", 1)
        assert rule.configured_rules.dates_and_times == {"calendar_era": "use_bc_and_ad"}
        assert [i.prompt for i in rule.custom_instructions] == ["Use a friendly tone"]
        brief = await _call(alice.get_all_style_rules)
        assert [r.style_id for r in brief] == [rule.style_id]
        assert brief[0].configured_rules is None and not brief[0].custom_instructions
        detailed = await _call(alice.get_all_style_rules, detailed=True)
        assert detailed[0].custom_instructions[0].label == "Tone"
        assert await _call(bob.get_all_style_rules) == []
        with pytest.raises(deepl.DeepLException, match="not found"):
            await _call(bob.get_style_rule, rule.style_id)

        renamed = await _call(alice.update_style_rule_name, rule, "Manuals")
        assert (renamed.name, renamed.version) == ("Manuals", 2)
        configured = await _call(
            alice.update_style_rule_configured_rules,
            rule,
            {"numbers": {"decimal_separator": "use_comma"}},
        )
        assert configured.configured_rules.numbers == {"decimal_separator": "use_comma"}
        assert configured.configured_rules.dates_and_times == {}
        added = await _call(
            alice.create_style_rule_custom_instruction,
            rule,
            "Units",
            "Write units in full",
            source_language="en",
        )
        assert added.id and added.source_language == "en"
        fetched = await _call(alice.get_style_rule_custom_instruction, rule, added.id)
        assert fetched.prompt == "Write units in full"
        changed = await _call(
            alice.update_style_rule_custom_instruction, rule, added.id, "Units", "Use SI units"
        )
        assert changed.prompt == "Use SI units" and changed.id == added.id
        assert len((await _call(alice.get_style_rule, rule)).custom_instructions) == 2
        await _call(alice.delete_style_rule_custom_instruction, rule, added.id)
        with pytest.raises(deepl.DeepLException, match="not found"):
            await _call(alice.get_style_rule_custom_instruction, rule, added.id)
        await _call(alice.delete_style_rule, rule)
        assert await _call(alice.get_all_style_rules) == []
        with pytest.raises(deepl.DeepLException, match="Unknown category"):
            await _call(alice.create_style_rule, "Bad", "de", configured_rules={"x": {"a": "b"}})


async def test_a_style_rule_becomes_the_prompts_instructions(
    make_app, engine: FakeEngine, tmp_path
) -> None:
    db = str(tmp_path / "rules.sqlite3")
    async with served(make_app(glossary_db=db)) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        rule = await _call(
            client.create_style_rule,
            "Docs",
            "de",
            configured_rules={"numbers": {"decimal_separator": "use_comma"}},
            custom_instructions=[
                {"label": "Tone", "prompt": "Use a friendly tone"},
                {"label": "French", "prompt": "Keep French titles", "source_language": "fr"},
            ],
        )
    # Kept across a restart, in the DeepL database.
    async with served(make_app(glossary_db=db)) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        result = await _call(
            client.translate_text,
            "Hello",
            source_lang="EN",
            target_lang="DE",
            style_rule=rule.style_id,
            custom_instructions=["Be brief"],
        )
        assert result.text == "HELLO"
        with pytest.raises(deepl.DeepLException, match="style rule's language"):
            await _call(
                client.translate_text,
                "Hello",
                source_lang="EN",
                target_lang="FR",
                style_rule=rule.style_id,
            )
        with pytest.raises(deepl.DeepLException, match="not found"):
            await _call(
                deepl.DeepLClient("bob", server_url=url).translate_text,
                "Hello",
                source_lang="EN",
                target_lang="DE",
                style_rule=rule.style_id,
            )
    (prompt,) = _prompts(engine)
    assert "<instruction>Numbers: decimal separator: use comma.</instruction>" in prompt
    assert "<instruction>Use a friendly tone</instruction>" in prompt
    assert "<instruction>Be brief</instruction>" in prompt
    # An instruction for French sources only: this source is English.
    assert "French titles" not in prompt
