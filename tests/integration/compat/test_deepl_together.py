"""One /v2/translate call with every part of a prompt DeepL's client can ask for at once: a
translation memory's close matches, context, custom instructions, a style rule and a v3
glossary all reach the one prompt, each in its place; an exact match still comes from the
memory."""

from __future__ import annotations

import asyncio
from pathlib import Path

import deepl
from deepl.api_data import MultilingualGlossaryDictionaryEntries as Entries

from translate_server.memory.formats import write_tmx

from tests.integration.compat.test_deepl_memories import ENTRIES
from tests.integration.memory.test_memory_translate_api import FUZZY, prompts
from tests.support.fakes import FakeEngine
from tests.support.harness import served


async def _call(function, *args, **kwargs):
    return await asyncio.to_thread(function, *args, **kwargs)


async def test_memory_context_instructions_style_rule_and_v3_glossary_together(
    make_app, engine: FakeEngine, tmp_path: Path
) -> None:
    tmx = tmp_path / "product.tmx"
    tmx.write_bytes(write_tmx(ENTRIES))
    async with served(make_app()) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        job = await _call(client.import_translation_memory_from_filepath, tmx, display_name="p")
        memory_id = job.result.translation_memory_id
        glossary = await _call(
            client.create_multilingual_glossary,
            "UI",
            [Entries("EN", "DE", {"settings": "Einstellungen"})],
        )
        rule = await _call(
            client.create_style_rule,
            "Docs",
            "de",
            custom_instructions=[{"label": "Tone", "prompt": "Use a friendly tone"}],
        )
        asked = {
            "source_lang": "EN",
            "target_lang": "DE",
            "translation_memory": memory_id,
            "context": "The dialog lists files.",
            "custom_instructions": ["Keep it short"],
            "style_rule": rule,
            "glossary": glossary,
        }
        fuzzy = await _call(client.translate_text, FUZZY, **asked)
        exact = await _call(client.translate_text, "Save the file.", **asked)
    assert fuzzy.text  # the engine's: the one request below
    assert exact.text == "Speichern Sie die Datei."  # the memory's, without the engine
    (prompt,) = prompts(engine)
    system, turns = prompt.split("<|im_start|>user", 1)
    assert "- settings => Einstellungen" in system
    assert "<context>\nThe dialog lists files.\n</context>" in system
    assert "<instruction>Keep it short</instruction>" in system
    assert "Use a friendly tone" in system
    # The client's instructions close the system message, after the context.
    assert system.index("</context>") < system.index("<instruction>")
    # The memory's close matches are earlier turns, the text's own last.
    assert "Öffnen Sie das Einstellungsfenster." in turns
    assert turns.rindex(FUZZY) > turns.index("Öffnen Sie das Einstellungsfenster.")
