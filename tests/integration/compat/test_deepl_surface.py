"""The rest of DeepL's API its official client touches: usage and glossaries (both kept across
restarts), the options of /v2/translate, XML, legacy keys and DeepL's error shape."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import deepl
import httpx
import pytest

from translate_server.errors import StorageUnavailableError

from tests.support.fakes import FakeEngine
from tests.support.harness import running, served


async def _call(function, *args, **kwargs):
    return await asyncio.to_thread(function, *args, **kwargs)


async def _http(method: str, url: str, **kwargs) -> httpx.Response:
    async with httpx.AsyncClient(timeout=30) as client:
        return await client.request(method, url, **kwargs)


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "glossaries.sqlite3")


async def test_usage_counts_characters_per_key(make_app, db: str) -> None:
    async with served(make_app(glossary_db=db)) as url:
        alice = deepl.Translator("alice", server_url=url)
        bob = deepl.Translator("bob", server_url=url)
        await _call(alice.translate_text, ["Hello", "world!"], source_lang="EN", target_lang="DE")
        usage = await _call(alice.get_usage)
        assert usage.character.count == len("Hello") + len("world!")
        assert usage.character.limit is not None and not usage.any_limit_reached
        assert (await _call(bob.get_usage)).character.count == 0
        posted = await _http(
            "POST", f"{url}/v2/usage", headers={"Authorization": "DeepL-Auth-Key alice"}
        )
        assert posted.json()["character_count"] == 11


async def test_usage_survives_a_restart_and_keeps_counting(make_app, db: str) -> None:
    async with served(make_app(glossary_db=db)) as url:
        alice = deepl.Translator("alice", server_url=url)
        bob = deepl.Translator("bob", server_url=url)
        await _call(alice.translate_text, "Hello", source_lang="EN", target_lang="DE")
        await _call(bob.translate_text, ["Good", "morning"], source_lang="EN", target_lang="DE")
    # A new server on the same database: the counts go on from where they were.
    async with served(make_app(glossary_db=db)) as url:
        alice = deepl.Translator("alice", server_url=url)
        bob = deepl.Translator("bob", server_url=url)
        assert (await _call(alice.get_usage)).character.count == len("Hello")
        assert (await _call(bob.get_usage)).character.count == len("Goodmorning")
        await _call(alice.translate_text, "world!", source_lang="EN", target_lang="DE")
        assert (await _call(alice.get_usage)).character.count == len("Helloworld!")
        assert (await _call(bob.get_usage)).character.count == len("Goodmorning")
        # Concurrent requests of one key each add theirs (over httpx, truly at once: the
        # stock client is synchronous); different texts, as identical ones in flight would
        # share one run and one bill.
        answers = await asyncio.gather(
            *(
                _http(
                    "POST",
                    f"{url}/v2/translate",
                    headers={"Authorization": "DeepL-Auth-Key alice"},
                    json={"text": [f"Hi{n}"], "source_lang": "EN", "target_lang": "DE"},
                )
                for n in range(8)
            )
        )
        assert {answer.status_code for answer in answers} == {200}
        assert (await _call(alice.get_usage)).character.count == len("Helloworld!") + 24
    # Another database is another count.
    async with served(make_app(glossary_db=db + ".other")) as url:
        alice = deepl.Translator("alice", server_url=url)
        assert (await _call(alice.get_usage)).character.count == 0


async def test_a_deepl_database_that_cannot_be_opened_fails_the_start(
    make_app, tmp_path: Path
) -> None:
    # The database's path is a directory: SQLite cannot open it. The server says so as it
    # starts, naming the database, rather than failing every usage count later.
    with pytest.raises(Exception) as failed:  # noqa: PT011 - alone or in Litestar's group
        async with running(make_app(glossary_db=str(tmp_path))):
            pass
    assert failed.errisinstance(StorageUnavailableError) or failed.group_contains(
        StorageUnavailableError, match=str(tmp_path)
    )


async def test_glossaries_with_the_official_client(make_app, engine: FakeEngine, db: str) -> None:
    async with served(make_app(glossary_db=db)) as url:
        client = deepl.Translator("alice", server_url=url)
        pairs = await _call(client.get_glossary_languages)
        assert ("en", "de") in {(p.source_lang, p.target_lang) for p in pairs}
        glossary = await _call(
            client.create_glossary,
            "Pets",
            source_lang="EN",
            target_lang="DE",
            entries={"cat": "Katze", "dog": "Hund"},
        )
        assert glossary.ready and glossary.entry_count == 2
        assert (glossary.source_lang, glossary.target_lang) == ("EN", "DE")
        from_csv = await _call(
            client.create_glossary_from_csv,
            "CSV",
            source_lang="EN",
            target_lang="DE",
            csv_data='mat,Matte\n"a, b",c\n',
        )
        assert await _call(client.get_glossary_entries, from_csv) == {"mat": "Matte", "a, b": "c"}
        listed = await _call(client.list_glossaries)
        assert [g.name for g in listed] == ["Pets", "CSV"]
        assert (await _call(client.get_glossary, glossary.glossary_id)).name == "Pets"
        assert await _call(client.get_glossary_entries, glossary) == {"cat": "Katze", "dog": "Hund"}
        result = await _call(
            client.translate_text,
            "The cat sleeps.",
            source_lang="EN",
            target_lang="DE",
            glossary=glossary,
        )
        assert result.text == "THE CAT SLEEPS."
        prompt = engine.decode(engine.requests[-1][1])
        assert "cat => Katze" in prompt and "dog" not in prompt
        # Another key sees none of them.
        other = deepl.Translator("bob", server_url=url)
        assert await _call(other.list_glossaries) == []
        with pytest.raises(deepl.GlossaryNotFoundException):
            await _call(other.get_glossary, glossary.glossary_id)
        await _call(client.delete_glossary, from_csv)
        with pytest.raises(deepl.GlossaryNotFoundException):
            await _call(client.delete_glossary, from_csv)
    # A new server on the same database still has them.
    async with served(make_app(glossary_db=db)) as url:
        client = deepl.Translator("alice", server_url=url)
        assert [g.name for g in await _call(client.list_glossaries)] == ["Pets"]


async def test_glossary_refusals(make_app, db: str) -> None:
    async with served(make_app(glossary_db=db)) as url:
        client = deepl.Translator("alice", server_url=url)
        glossary = await _call(
            client.create_glossary,
            "Pets",
            source_lang="EN",
            target_lang="DE",
            entries={"cat": "Katze"},
        )
        with pytest.raises(deepl.DeepLException, match="languages do not match"):
            await _call(
                client.translate_text,
                "cat",
                source_lang="EN",
                target_lang="FR",
                glossary=glossary.glossary_id,
            )
        bad = await _http(
            "POST",
            f"{url}/v2/glossaries",
            json={
                "name": "x",
                "source_lang": "en",
                "target_lang": "de",
                "entries": "no tab here",
                "entries_format": "tsv",
            },
        )
        assert bad.status_code == 400 and "Entry 1" in bad.json()["message"]
        unknown = await _http(
            "POST",
            f"{url}/v2/translate",
            json={"text": ["cat"], "source_lang": "EN", "target_lang": "DE", "glossary_id": "nope"},
        )
        assert unknown.status_code == 404 and set(unknown.json()) == {"message"}


async def test_invalid_formality_and_model_type_are_400(make_app) -> None:
    async with served(make_app()) as url:
        for field, value in (("formality", "very"), ("model_type", "fastest")):
            response = await _http(
                "POST",
                f"{url}/v2/translate",
                json={"text": ["Hi"], "target_lang": "DE", field: value},
            )
            assert response.status_code == 400
            assert response.json() == {"message": f"Value for '{field}' not supported."}


async def test_accepted_options_and_model_type_used(make_app) -> None:
    async with served(make_app()) as url:
        client = deepl.Translator("any", server_url=url)
        result = await _call(
            client.translate_text,
            "Hello there",
            source_lang="EN",
            target_lang="DE",
            context="A greeting.",
            split_sentences="nonewlines",
            preserve_formatting=True,
            outline_detection=False,
            non_splitting_tags=["x"],
            splitting_tags="p,div",
            model_type="prefer_quality_optimized",
            formality="default",
        )
        assert result.text == "HELLO THERE"
        assert result.model_type_used == "quality_optimized"


async def test_xml_is_processed_as_xml(make_app) -> None:
    async with served(make_app()) as url:
        client = deepl.Translator("any", server_url=url)
        xml = (
            "<doc><script>hello</script><code>word</code><skip>keep me</skip>"
            '<br>line</br><p translate="no">yes</p></doc>'
        )
        result = await _call(
            client.translate_text,
            xml,
            source_lang="EN",
            target_lang="DE",
            tag_handling="xml",
            ignore_tags=["skip"],
        )
        # No element is special in XML: only the ignored one keeps its text.
        assert result.text == (
            "<doc><script>HELLO</script><code>WORD</code><skip>keep me"
            '</skip><br>LINE</br><p translate="no">YES</p></doc>'
        )
        html = await _call(
            client.translate_text,
            "<p>hi <code>x</code> <i>there</i></p>",
            source_lang="EN",
            target_lang="DE",
            tag_handling="html",
            ignore_tags="i",
        )
        assert html.text == "<p>HI <code>x</code> <i>there</i></p>"


async def test_a_batch_with_an_undetectable_text_translates_the_others(make_app) -> None:
    async with served(make_app()) as url:
        client = deepl.Translator("any", server_url=url)
        results = await _call(
            client.translate_text,
            ["Guten Morgen, wie geht es dir heute?", "12345", "= + -"],
            target_lang="EN-US",
        )
        assert [r.text for r in results] == [
            "GUTEN MORGEN, WIE GEHT ES DIR HEUTE?",
            "12345",
            "= + -",
        ]
        assert [r.detected_source_lang for r in results] == ["DE", "EN", "EN"]


@pytest.mark.parametrize("overrides", [{"api_key": ["secret"]}])
async def test_legacy_auth_key_field_and_query(make_app, overrides: dict) -> None:
    async with served(make_app(**overrides)) as url:
        form = await _http(
            "POST",
            f"{url}/v2/translate",
            data={"auth_key": "secret", "text": "Hi", "source_lang": "EN", "target_lang": "DE"},
        )
        assert form.status_code == 200 and form.json()["translations"][0]["text"] == "HI"
        query = await _http("GET", f"{url}/v2/usage", params={"auth_key": "secret"})
        assert query.status_code == 200 and query.json()["character_count"] == 2
        wrong = await _http(
            "POST",
            f"{url}/v2/translate",
            data={"auth_key": "nope", "text": "Hi", "target_lang": "DE"},
        )
        assert wrong.status_code == 403 and set(wrong.json()) == {"message"}
        missing = await _http("GET", f"{url}/v2/usage")
        assert missing.status_code == 403


async def test_unknown_v2_and_v3_paths_answer_in_deepl_shape(make_app) -> None:
    async with served(make_app()) as url:
        for method in ("GET", "POST"):
            for path in ("/v2/write/expand", "/v3/usage"):
                response = await _http(method, f"{url}{path}")
                assert response.status_code == 404
                assert response.json() == {"message": f"Not found: {path}"}


async def test_a_stored_glossary_reaches_a_document_job(
    make_app, db: str, engine: FakeEngine
) -> None:
    async with served(make_app(glossary_db=db)) as url:
        client = deepl.Translator("alice", server_url=url)
        glossary = await _call(
            client.create_glossary,
            "Pets",
            source_lang="EN",
            target_lang="DE",
            entries={"cat": "Katze"},
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
        assert "cat" in prompt and "Katze" in prompt  # the term went to the model
        with pytest.raises(deepl.DeepLException, match="languages do not match"):
            await _call(
                client.translate_document_upload,
                b"1\n00:00:01,000 --> 00:00:02,000\nHi.\n",
                source_lang="EN",
                target_lang="FR",
                filename="a.srt",
                glossary=glossary.glossary_id,
            )  # an id: the client cannot check it
        other = deepl.Translator("bob", server_url=url)  # another key's glossary: not found
        with pytest.raises(deepl.DeepLException, match="Glossary not found"):
            await _call(
                other.translate_document_upload,
                b"1\n00:00:01,000 --> 00:00:02,000\nHi.\n",
                source_lang="EN",
                target_lang="DE",
                filename="a.srt",
                glossary=glossary.glossary_id,
            )
