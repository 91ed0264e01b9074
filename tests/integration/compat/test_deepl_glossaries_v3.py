"""DeepL's multilingual glossaries (/v3/glossaries) through the official client: dictionaries
per pair, PATCH and PUT, entries; the same glossaries as v2's, usable by id on /v2/translate
and /v2/document."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import deepl
import pytest
from deepl.api_data import MultilingualGlossaryDictionaryEntries as Entries

from tests.support.fakes import FakeEngine
from tests.support.harness import served

# The stores' contract: every test here runs on SQLite and on PostgreSQL.
pytestmark = pytest.mark.usefixtures("backend")


async def _call(function, *args, **kwargs):
    return await asyncio.to_thread(function, *args, **kwargs)


def _pairs(glossary) -> dict[tuple[str, str], int]:
    return {(d.source_lang, d.target_lang): d.entry_count for d in glossary.dictionaries}


def _entries(response) -> str:
    (dictionary,) = response.dictionaries
    return dictionary.entries


async def test_multilingual_glossaries_with_the_official_client(
    make_app, engine: FakeEngine, tmp_path: Path
) -> None:
    db = str(tmp_path / "deepl.sqlite3")
    async with served(make_app(glossary_db=db)) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        glossary = await _call(
            client.create_multilingual_glossary,
            "Pets",
            [
                Entries("EN", "DE", {"cat": "Katze", "dog": "Hund"}),
                Entries("EN", "FR", {"cat": "chat"}),
            ],
        )
        assert _pairs(glossary) == {("EN", "DE"): 2, ("EN", "FR"): 1}
        assert [g.glossary_id for g in await _call(client.list_multilingual_glossaries)] == [
            glossary.glossary_id
        ]
        fetched = await _call(client.get_multilingual_glossary, glossary.glossary_id)
        assert fetched.name == "Pets" and _pairs(fetched) == _pairs(glossary)
        entries = await _call(client.get_multilingual_glossary_entries, glossary, "EN", "DE")
        assert _entries(entries) == "cat\tKatze\ndog\tHund"

        renamed = await _call(client.update_multilingual_glossary_name, glossary, "Animals")
        assert renamed.name == "Animals"
        # PATCH merges: a new entry added, an old one's target replaced, a new pair made.
        merged = await _call(
            client.update_multilingual_glossary_dictionary,
            glossary,
            Entries("EN", "DE", {"dog": "Hündchen", "bird": "Vogel"}),
        )
        assert _pairs(merged)[("EN", "DE")] == 3
        entries = await _call(client.get_multilingual_glossary_entries, glossary, "EN", "DE")
        assert _entries(entries) == "cat\tKatze\ndog\tHündchen\nbird\tVogel"
        # PUT replaces the pair's dictionary whole.
        replaced = await _call(
            client.replace_multilingual_glossary_dictionary,
            glossary,
            Entries("EN", "FR", {"mouse": "souris"}),
        )
        assert (replaced.source_lang, replaced.target_lang, replaced.entry_count) == (
            "EN",
            "FR",
            1,
        )
        entries = await _call(client.get_multilingual_glossary_entries, glossary, "EN", "FR")
        assert _entries(entries) == "mouse\tsouris"

        # Its id on /v2/translate: the dictionary of the request's pair.
        result = await _call(
            client.translate_text,
            "The bird sleeps.",
            source_lang="EN",
            target_lang="DE",
            glossary=glossary.glossary_id,
        )
        assert result.text == "THE BIRD SLEEPS."
        assert "bird => Vogel" in engine.decode(engine.requests[-1][1])
        with pytest.raises(deepl.DeepLException, match="no dictionary for that pair"):
            await _call(
                client.translate_text,
                "cat",
                source_lang="EN",
                target_lang="IT",
                glossary=glossary.glossary_id,
            )

        await _call(
            client.delete_multilingual_glossary_dictionary,
            glossary,
            source_lang="EN",
            target_lang="FR",
        )
        assert _pairs(await _call(client.get_multilingual_glossary, glossary.glossary_id)) == {
            ("EN", "DE"): 3
        }
        with pytest.raises(deepl.GlossaryNotFoundException):
            await _call(client.get_multilingual_glossary_entries, glossary, "EN", "FR")
        # Another key sees none of it.
        bob = deepl.DeepLClient("bob", server_url=url)
        assert await _call(bob.list_multilingual_glossaries) == []
        with pytest.raises(deepl.GlossaryNotFoundException):
            await _call(bob.get_multilingual_glossary, glossary.glossary_id)
    # Kept across a restart.
    async with served(make_app(glossary_db=db)) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        (kept,) = await _call(client.list_multilingual_glossaries)
        assert kept.name == "Animals"
        await _call(client.delete_multilingual_glossary, kept)
        assert await _call(client.list_multilingual_glossaries) == []
        with pytest.raises(deepl.GlossaryNotFoundException):
            await _call(client.delete_multilingual_glossary, kept)


async def test_v2_and_v3_see_the_same_glossaries(make_app) -> None:
    async with served(make_app()) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        v2 = await _call(
            client.create_glossary, "Old", source_lang="EN", target_lang="DE", entries={"a": "b"}
        )
        v3 = await _call(
            client.create_multilingual_glossary, "New", [Entries("EN", "FR", {"c": "d"})]
        )
        several = await _call(
            client.create_multilingual_glossary,
            "Both",
            [Entries("EN", "DE", {"e": "f"}), Entries("DE", "EN", {"f": "e"})],
        )
        # v3 lists every glossary; v2 those of one pair.
        assert [g.name for g in await _call(client.list_multilingual_glossaries)] == [
            "Old",
            "New",
            "Both",
        ]
        assert [g.name for g in await _call(client.list_glossaries)] == ["Old", "New"]
        assert _pairs(await _call(client.get_multilingual_glossary, v2.glossary_id)) == {
            ("EN", "DE"): 1
        }
        assert await _call(client.get_glossary_entries, v3.glossary_id) == {"c": "d"}
        with pytest.raises(deepl.DeepLException, match="has 2 dictionaries"):
            await _call(client.get_glossary, several.glossary_id)
        # Edited through v3, seen by v2.
        await _call(
            client.update_multilingual_glossary_dictionary,
            v2.glossary_id,
            Entries("EN", "DE", {"x": "y"}),
        )
        assert await _call(client.get_glossary_entries, v2.glossary_id) == {"a": "b", "x": "y"}
        await _call(client.delete_glossary, v3.glossary_id)
        assert [g.name for g in await _call(client.list_multilingual_glossaries)] == ["Old", "Both"]


async def test_refusals(make_app) -> None:
    async with served(make_app()) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        with pytest.raises(deepl.DeepLException, match="given twice"):
            await _call(
                client.create_multilingual_glossary,
                "Twice",
                [Entries("EN", "DE", {"a": "b"}), Entries("EN-GB", "DE", {"c": "d"})],
            )
        with pytest.raises(deepl.DeepLException, match="not supported"):
            await _call(
                client.create_multilingual_glossary, "Bad", [Entries("EN", "XX", {"a": "b"})]
            )
        with pytest.raises(deepl.GlossaryNotFoundException):
            await _call(
                client.replace_multilingual_glossary_dictionary,
                "no-such-id",
                Entries("EN", "DE", {"a": "b"}),
            )


async def test_a_v3_glossary_reaches_a_document_job(make_app, engine: FakeEngine) -> None:
    async with served(make_app()) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        glossary = await _call(
            client.create_multilingual_glossary,
            "Pets",
            [Entries("EN", "FR", {"cat": "chat"}), Entries("EN", "DE", {"cat": "Katze"})],
        )
        out = io.BytesIO()
        await _call(
            client.translate_document,
            io.BytesIO(b"1\n00:00:01,000 --> 00:00:02,000\nThe cat sleeps.\n"),
            out,
            source_lang="EN",
            target_lang="DE",
            filename="cat.srt",
            glossary=glossary,
        )
    assert b"THE CAT SLEEPS." in out.getvalue()
    prompt = engine.decode(engine.requests[0][1])
    assert "cat => Katze" in prompt and "chat" not in prompt


async def test_glossary_ids_apply_in_order(make_app, engine: FakeEngine) -> None:
    async with served(make_app()) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        first = await _call(
            client.create_multilingual_glossary, "A", [Entries("EN", "DE", {"cat": "Katze"})]
        )
        second = await _call(
            client.create_glossary,
            "B",
            source_lang="EN",
            target_lang="DE",
            entries={"cat": "Mieze", "dog": "Hund"},
        )
        result = await _call(
            client.translate_text,
            "The cat and the dog.",
            source_lang="EN",
            target_lang="DE",
            glossary_ids=[first, second],
        )
        assert result.text == "THE CAT AND THE DOG."
        prompt = engine.decode(engine.requests[-1][1])
        assert "cat => Katze" in prompt and "dog => Hund" in prompt and "Mieze" not in prompt
        with pytest.raises(deepl.DeepLException, match="at most 5"):
            await _call(
                client.translate_text,
                "cat",
                source_lang="EN",
                target_lang="DE",
                extra_body_parameters={"glossary_ids": [first.glossary_id] * 6},
            )
