"""DeepL's translation-memory API as the official `deepl` client uses it: a TMX file imported
(job, upload, poll), listed, read, paged through, exported, deleted, and used by
`translate_text(translation_memory=...)`; the memory is one of the key's own memories."""

from __future__ import annotations

import asyncio
import io
import time
from pathlib import Path
from types import SimpleNamespace

import deepl
import httpx
import pytest

from translate_server.memory.entries import Entry
from translate_server.memory.formats import read_entries, write_tmx

from tests.integration.memory.test_memory_translate_api import CHAT_PROMPT, FUZZY, prompts
from tests.support.fakes import FakeEngine
from tests.support.harness import served

# The stores' contract: every test here runs on SQLite and on PostgreSQL.
pytestmark = pytest.mark.usefixtures("backend")

ENTRIES = [
    Entry("Save the file.", "Speichern Sie die Datei.", "en", "de"),
    Entry("Delete %(count)d files?", "%(count)d Dateien löschen?", "en", "de"),
    Entry("Open the settings window.", "Öffnen Sie das Einstellungsfenster.", "en", "de"),
    Entry("Close the settings window.", "Schließen Sie das Einstellungsfenster.", "en", "de"),
    Entry("Save the file.", "Enregistrez le fichier.", "en", "fr"),
]


async def _call(function, *args, **kwargs):
    return await asyncio.to_thread(function, *args, **kwargs)


@pytest.fixture
def quick_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    """DeepL's client waits 5 s between two looks at a document's status; here 20 ms."""
    monkeypatch.setattr(
        deepl.translator,
        "time",
        SimpleNamespace(time=time.time, sleep=lambda seconds: time.sleep(min(seconds, 0.02))),
    )


@pytest.fixture
def tmx(tmp_path: Path) -> Path:
    path = tmp_path / "product.tmx"
    path.write_bytes(write_tmx(ENTRIES))
    return path


async def _imported(client: deepl.DeepLClient, tmx: Path, name: str = "product") -> str:
    job = await _call(client.import_translation_memory_from_filepath, tmx, display_name=name)
    assert job.ok and job.done and job.operation == "import"
    assert job.display_name == name and job.source_content_length == tmx.stat().st_size
    assert job.result is not None and job.result.translation_memory_id
    return job.result.translation_memory_id


async def test_a_tmx_file_imports_and_is_described(make_app, tmx: Path) -> None:
    async with served(make_app()) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        memory_id = await _imported(client, tmx)
        info = await _call(client.get_translation_memory, memory_id)
        listed = await _call(client.list_translation_memories)
        # It is one of the server's memories: /memories has it too.
        async with httpx.AsyncClient(base_url=url) as http:
            ours = (await http.get(f"/memories/{memory_id}")).json()
    assert info.name == "product" and info.segment_count == 5
    assert info.source_language == "en" and info.target_languages == ["de", "fr"]
    assert info.creation_time is not None and info.updated_time is not None
    assert [memory.translation_memory_id for memory in listed] == [memory_id]
    assert ours["entries"] == 5 and ours["name"] == "product"


async def test_translate_text_answers_exact_matches_and_shows_close_ones(
    make_app, engine: FakeEngine, tmx: Path
) -> None:
    async with served(make_app()) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        memory_id = await _imported(client, tmx)
        exact = await _call(
            client.translate_text,
            "Save   the file.",
            source_lang="EN",
            target_lang="DE",
            translation_memory=memory_id,
        )
        assert exact.text == "Speichern Sie die Datei."
        assert engine.requests == []
        await _call(
            client.translate_text,
            FUZZY,
            source_lang="EN",
            target_lang="DE",
            translation_memory=memory_id,
            translation_memory_threshold=75,
        )
        assert prompts(engine) == [CHAT_PROMPT]
        # Above every match's score, the memory shows nothing.
        await _call(
            client.translate_text,
            "Open the settings windows!",
            source_lang="EN",
            target_lang="DE",
            translation_memory=memory_id,
            translation_memory_threshold=100,
        )
        assert "Schließen" not in prompts(engine)[1]


async def test_segments_come_a_page_at_a_time_and_filtered(make_app, tmx: Path) -> None:
    async with served(make_app()) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        memory_id = await _imported(client, tmx)
        first = await _call(client.list_translation_memory_segments, memory_id, page_size=2)
        second = await _call(
            client.list_translation_memory_segments,
            memory_id,
            page_size=2,
            page_cursor=first.next_page_cursor,
        )
        filtered = await _call(
            client.list_translation_memory_segments, memory_id, filter_text="SETTINGS"
        )
        exact_case = await _call(
            client.list_translation_memory_segments,
            memory_id,
            filter_text="SETTINGS",
            filter_case_sensitive=True,
        )
    assert first.segment_count == 5 and len(first) == 2 and first.next_page_cursor
    assert len(second) == 2 and second.next_page_cursor is None
    saved = first.segments[0]
    assert saved.source_text == "Save the file."
    assert {(t.target_language, t.target_text) for t in saved.targets} == {
        ("de", "Speichern Sie die Datei."),
        ("fr", "Enregistrez le fichier."),
    }
    sources = [s.source_text for s in [*first, *second]]
    assert len(set(sources)) == 4
    assert [s.source_text for s in filtered] == [
        "Open the settings window.",
        "Close the settings window.",
    ]
    assert len(exact_case) == 0


async def test_a_memory_exports_as_tmx_and_deletes(make_app, tmx: Path, tmp_path: Path) -> None:
    out = tmp_path / "back.tmx"
    async with served(make_app()) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        memory_id = await _imported(client, tmx)
        job = await _call(client.export_translation_memory_to_filepath, memory_id, out)
        assert job.ok and job.operation == "export" and job.translation_memory_id == memory_id
        await _call(client.delete_translation_memory, memory_id)
        with pytest.raises(deepl.DeepLException, match="Not found"):
            await _call(client.get_translation_memory, memory_id)
        assert await _call(client.list_translation_memories) == []
    back = read_entries(out.read_bytes(), "back.tmx", None, None)
    assert sorted(back, key=repr) == sorted(ENTRIES, key=repr)


async def test_another_keys_memory_is_not_found(make_app, tmx: Path) -> None:
    async with served(make_app(api_key=["alice", "bob"])) as url:
        alice = deepl.DeepLClient("alice", server_url=url)
        bob = deepl.DeepLClient("bob", server_url=url)
        memory_id = await _imported(alice, tmx)
        with pytest.raises(deepl.DeepLException, match="Not found"):
            await _call(bob.get_translation_memory, memory_id)
        with pytest.raises(deepl.DeepLException, match="Not found"):
            await _call(
                bob.translate_text, "Save the file.", target_lang="DE", translation_memory=memory_id
            )
        with pytest.raises(deepl.DeepLException, match="Not found"):
            await _call(bob.delete_translation_memory, memory_id)
        assert await _call(bob.list_translation_memories) == []
        assert len(await _call(alice.list_translation_memories)) == 1
        # Without a key, the API refuses; the upload URL needs none (its token is the key).
        async with httpx.AsyncClient(base_url=url) as http:
            refused = await http.get("/v3/translation_memories")
        assert refused.status_code == 403 and "message" in refused.json()


async def test_a_file_that_cannot_be_read_fails_the_job(make_app, tmp_path: Path) -> None:
    bad = tmp_path / "bad.tmx"
    bad.write_bytes(b"<tmx version='1.4'><body><tu><tuv xml:lang='en'>")
    async with served(make_app()) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        with pytest.raises(deepl.DeepLException, match=r"importing translation memory.*line 1"):
            await _call(client.import_translation_memory_from_filepath, bad)
        # The failed import leaves no memory behind.
        assert await _call(client.list_translation_memories) == []


async def test_a_file_over_the_limit_is_refused_with_the_limit_named(make_app, tmx: Path) -> None:
    async with served(make_app(max_memory_bytes=100)) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        with pytest.raises(deepl.DeepLException, match="max-memory-bytes") as refused:
            await _call(client.import_translation_memory_from_filepath, tmx)
    assert refused.value.http_status_code == 413


async def test_bad_requests_answer_400_in_deepls_shape(make_app, tmx: Path) -> None:
    async with served(make_app()) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        memory_id = await _imported(client, tmx)
        headers = {"Authorization": "DeepL-Auth-Key alice"}
        async with httpx.AsyncClient(base_url=url, headers=headers) as http:
            answers = [
                await http.post(
                    "/v2/translate",
                    json={"text": ["Hi"], "target_lang": "DE", "translation_memory_threshold": 80},
                ),
                await http.post(
                    "/v2/translate",
                    json={
                        "text": ["Hi"],
                        "target_lang": "DE",
                        "translation_memory_id": memory_id,
                        "translation_memory_threshold": 101,
                    },
                ),
                await http.get(f"/v3/translation_memories/{memory_id}/segments?page_size=0"),
                await http.get(f"/v3/translation_memories/{memory_id}/segments?filter_text=a"),
                await http.get(f"/v3/translation_memories/{memory_id}/segments?page_cursor=zz"),
                await http.get("/v3/translation_memories?page_size=26"),
                await http.post(
                    "/v3/translation_memories/import",
                    json={"source_file": {"file_name": "a.tmx", "content_length": 0}},
                ),
            ]
            created = (
                await http.post(
                    "/v3/translation_memories/import",
                    json={"source_file": {"file_name": "a.tmx", "content_length": 10}},
                )
            ).json()
            # The upload must be the size the job declared, and comes once.
            short = await http.put(created["upload_url"], content=b"12345")
        for answer in answers:
            assert answer.status_code == 400, answer.text
            assert set(answer.json()) == {"message"}
        assert short.status_code == 400 and "declared 10" in short.json()["message"]


@pytest.mark.usefixtures("quick_polls")
async def test_a_document_is_translated_with_a_memory(
    make_app, engine: FakeEngine, tmx: Path
) -> None:
    document = b"Save the file.\n\nSomething else entirely.\n"
    async with served(make_app()) as url:
        client = deepl.DeepLClient("alice", server_url=url)
        memory_id = await _imported(client, tmx)
        out = io.BytesIO()
        await _call(
            client.translate_document,
            io.BytesIO(document),
            out,
            source_lang="EN",
            target_lang="DE",
            filename="notes.txt",
            translation_memory=memory_id,
            translation_memory_threshold=80,
        )
        # An unknown memory is refused at upload, not by a failed job later.
        with pytest.raises(deepl.DeepLException, match="Not found"):
            await _call(
                client.translate_document_upload,
                document,
                target_lang="DE",
                filename="notes.txt",
                translation_memory="mem_unknown",
            )
    assert out.getvalue().decode() == "Speichern Sie die Datei.\n\nSOMETHING ELSE ENTIRELY.\n"
    # Only the segment the memory did not have reached the engine.
    assert len(engine.requests) == 1
