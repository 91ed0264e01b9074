"""The official `deepl` client's document translation, and LibreTranslate's `translate_file` as
its web page uses it, against a real uvicorn server over the engine double."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import deepl
import docx
import httpx
import pytest

from tests.support.document_doubles import make_docx
from tests.support.fakes import FakeEngine, fake_translator
from tests.support.harness import eventually, read_until, served

SRT = (
    b"1\n00:00:01,000 --> 00:00:02,500\nGood morning, everyone.\n\n"
    b"2\n00:00:03,000 --> 00:00:04,000\nWelcome to the talk.\n"
)


pytestmark = pytest.mark.usefixtures("quick_polls")  # conftest.py beside this file


def paragraphs(data: bytes) -> list[str]:
    return [p.text for p in docx.Document(io.BytesIO(data)).paragraphs if p.text]


async def test_deepl_client_translates_a_docx_file(
    make_app, tmp_path: Path, engine: FakeEngine
) -> None:
    source = tmp_path / "report.docx"
    source.write_bytes(make_docx())
    target = tmp_path / "report.de.docx"
    async with served(make_app()) as url:
        translator = deepl.Translator("any-key", server_url=url)
        status = await asyncio.to_thread(
            translator.translate_document_from_filepath,
            source,
            target,
            source_lang="EN",
            target_lang="DE",
            formality="more",
        )
    assert status.done and status.billed_characters > 0
    expected = [text.upper() for text in paragraphs(source.read_bytes())]
    assert paragraphs(target.read_bytes()) == expected
    prompt = engine.decode(engine.requests[0][1])
    assert "from English to German" in prompt and "formal" in prompt


async def test_deepl_client_streams_and_the_result_is_deleted_once_downloaded(make_app) -> None:
    async with served(make_app()) as url:
        translator = deepl.Translator("any-key", server_url=url)
        out = io.BytesIO()
        await asyncio.to_thread(
            translator.translate_document,
            io.BytesIO(SRT),
            out,
            target_lang="DE",
            filename="talk.srt",
        )
        assert b"GOOD MORNING, EVERYONE." in out.getvalue()
        assert b"00:00:03,000 --> 00:00:04,000" in out.getvalue()
        # Step by step, as older clients and curl do it: forms, not JSON.
        async with httpx.AsyncClient(base_url=url) as client:
            uploaded = await client.post(
                "/v2/document", files={"file": ("talk.srt", SRT)}, data={"target_lang": "DE"}
            )
            handle = uploaded.json()
            assert uploaded.headers["x-document-id"] == handle["document_id"]
            form = {"document_key": handle["document_key"]}
            document = f"/v2/document/{handle['document_id']}"
            polled = await read_until(
                lambda: client.post(document, data=form),
                lambda response: response.json()["status"] not in ("queued", "translating"),
            )
            assert polled.json() == {
                "document_id": handle["document_id"],
                "status": "done",
                "billed_characters": 43,
            }
            result = await client.post(f"{document}/result", data=form)
            assert result.status_code == 200 and b"WELCOME TO THE TALK." in result.content
            gone = await client.post(document, data=form)
            assert gone.status_code == 404 and "message" in gone.json()


async def test_a_deepl_document_bills_its_characters_once_when_done(
    make_app, tmp_path: Path
) -> None:
    db = str(tmp_path / "deepl.sqlite3")
    async with served(make_app(glossary_db=db, api_key=["alice", "bob"])) as url:
        alice = deepl.Translator("alice", server_url=url)
        bob = deepl.Translator("bob", server_url=url)
        async with httpx.AsyncClient(
            base_url=url, headers={"Authorization": "DeepL-Auth-Key alice"}
        ) as client:
            handle = (
                await client.post(
                    "/v2/document", files={"file": ("talk.srt", SRT)}, data={"target_lang": "DE"}
                )
            ).json()
            form = {"document_key": handle["document_key"]}
            document = f"/v2/document/{handle['document_id']}"
            await read_until(
                lambda: client.post(document, data=form),
                lambda response: response.json()["status"] == "done",
            )
            # Polled again once done.
            statuses = [(await client.post(document, data=form)).json() for _ in range(3)]
            assert [s["status"] for s in statuses] == ["done"] * 3
            assert (await client.post(f"{document}/result", data=form)).status_code == 200
        usage = await asyncio.to_thread(alice.get_usage)
        assert usage.character.count == statuses[-1]["billed_characters"] == 43
        assert (await asyncio.to_thread(bob.get_usage)).character.count == 0
        # The official client's whole round, then its usage.
        status = await asyncio.to_thread(
            bob.translate_document,
            io.BytesIO(SRT),
            io.BytesIO(),
            target_lang="DE",
            filename="talk.srt",
        )
        assert (
            (await asyncio.to_thread(bob.get_usage)).character.count
            == status.billed_characters
            == 43
        )
        # Documents of the other APIs bill no DeepL usage.
        async with httpx.AsyncClient(base_url=url) as client:
            libre = await client.post(
                "/libretranslate/translate_file",
                files={"file": ("talk.srt", SRT)},
                data={"target": "de", "api_key": "alice"},
            )
            assert libre.status_code == 200
        assert (await asyncio.to_thread(alice.get_usage)).character.count == 43
    # A new server on the same database keeps the counts.
    async with served(make_app(glossary_db=db, api_key=["alice", "bob"])) as url:
        alice = deepl.Translator("alice", server_url=url)
        assert (await asyncio.to_thread(alice.get_usage)).character.count == 43


async def test_a_failed_or_cancelled_deepl_document_bills_nothing(make_app) -> None:
    def fails_when_doomed(prompt: str, options) -> str:
        if "Doomed" in prompt:
            raise RuntimeError("the engine cannot")
        return fake_translator(prompt, options)

    engine = FakeEngine(responder=fails_when_doomed)
    async with served(make_app(engine)) as url, httpx.AsyncClient(base_url=url) as client:
        translator = deepl.Translator("alice", server_url=url)
        doomed = SRT.replace(b"Good morning", b"Doomed morning")
        with pytest.raises(deepl.DocumentTranslationException):
            await asyncio.to_thread(
                translator.translate_document,
                io.BytesIO(doomed),
                io.BytesIO(),
                target_lang="DE",
                filename="talk.srt",
            )
        engine.hang = True  # the next job stays in flight until it is cancelled
        handle = await asyncio.to_thread(
            translator.translate_document_upload, SRT, target_lang="DE", filename="talk.srt"
        )
        await eventually(engine.unfinished_requests)
        # Cancelled through the job API every document shares (DeepL's has no cancel).
        cancelled = await client.delete(
            f"/translate/document/{handle.document_id}", params={"key": handle.document_key}
        )
        assert cancelled.status_code == 200, cancelled.text
        assert (await asyncio.to_thread(translator.get_usage)).character.count == 0


async def test_deepl_errors_reach_the_client(make_app) -> None:
    async with served(make_app(FakeEngine(token_delay=0.5))) as url:
        translator = deepl.Translator("any-key", server_url=url)
        with pytest.raises(deepl.DeepLException, match="cannot be translated"):
            await asyncio.to_thread(
                translator.translate_document_upload, b"MZ", target_lang="DE", filename="tool.exe"
            )
        handle = await asyncio.to_thread(
            translator.translate_document_upload, SRT, target_lang="DE", filename="talk.srt"
        )
        # A download too early is DeepL's 503, which its clients retry as "not ready".
        async with httpx.AsyncClient(base_url=url) as client:
            early = await client.post(
                f"/v2/document/{handle.document_id}/result",
                json={"document_key": handle.document_key},
            )
        assert early.status_code == 503 and "not translated yet" in early.json()["message"]
        wrong = deepl.DocumentHandle(handle.document_id, "not-the-key")
        with pytest.raises(deepl.DeepLException, match="Not found"):
            await asyncio.to_thread(translator.translate_document_get_status, wrong)
        with pytest.raises(deepl.DeepLException, match="not a BCP-47 language tag"):
            await asyncio.to_thread(
                translator.translate_document_upload, SRT, target_lang="D E", filename="talk.srt"
            )
        # A key sent neither as a form nor as JSON is a 4xx, as is broken JSON.
        async with httpx.AsyncClient(base_url=url) as client:
            status = f"/v2/document/{handle.document_id}"
            plain = await client.post(
                status, content=b"document_key=x", headers={"content-type": "text/plain"}
            )
            broken = await client.post(
                status, content=b'{"document_key": ', headers={"content-type": "application/json"}
            )
        assert plain.status_code == 415 and "form or as JSON" in plain.json()["message"]
        assert broken.status_code == 400 and "not valid JSON" in broken.json()["message"]


async def test_deepl_keys_keep_documents_apart(make_app) -> None:
    async with served(make_app(api_key=["alice", "bob"])) as url:
        alice = deepl.Translator("alice", server_url=url)
        bob = deepl.Translator("bob", server_url=url)
        handle = await asyncio.to_thread(
            alice.translate_document_upload, SRT, target_lang="DE", filename="talk.srt"
        )
        assert (await asyncio.to_thread(alice.translate_document_get_status, handle)).ok
        with pytest.raises(deepl.DeepLException, match="Not found"):
            await asyncio.to_thread(bob.translate_document_get_status, handle)


async def test_libretranslate_translate_file_and_download(make_app) -> None:
    async with served(make_app()) as url, httpx.AsyncClient() as client:
        # As LibreTranslate's web page sends it: a form with the file, source and target.
        response = await client.post(
            f"{url}/libretranslate/translate_file",
            files={"file": ("talk.srt", SRT)},
            data={"source": "auto", "target": "de"},
        )
        assert response.status_code == 200, response.text
        link = response.json()["translatedFileUrl"]
        assert link.startswith(f"{url}/libretranslate/download_file/")
        assert link.split("/")[-2] == response.headers["x-document-id"]
        download = await client.get(link)
        assert download.status_code == 200
        assert b"GOOD MORNING, EVERYONE." in download.content
        assert "talk.srt" in download.headers["content-disposition"]
        refused = await client.post(
            f"{url}/libretranslate/translate_file",
            files={"file": ("tool.exe", b"MZ")},
            data={"target": "de"},
        )
        assert refused.status_code == 400 and "cannot be translated" in refused.json()["error"]
        # An unknown language is refused up front (it used to fail the job: a 500).
        unknown = await client.post(
            f"{url}/libretranslate/translate_file",
            files={"file": ("talk.srt", SRT)},
            data={"target": "d e"},
        )
        assert unknown.status_code == 400 and "language tag" in unknown.json()["error"]


async def test_with_keys_an_upload_needs_one_in_its_header_or_form(make_app) -> None:
    async with (
        served(make_app(api_key=["alice", "bob"])) as url,
        httpx.AsyncClient(base_url=url) as client,
    ):
        upload = {"files": {"file": ("talk.srt", SRT)}}
        # No key anywhere: refused before a job exists, as DeepL and LibreTranslate refuse.
        deepl_none = await client.post("/v2/document", **upload, data={"target_lang": "DE"})
        libre_none = await client.post(
            "/libretranslate/translate_file", **upload, data={"target": "de"}
        )
        wrong = await client.post(
            "/v2/document", **upload, data={"target_lang": "DE", "auth_key": "mallory"}
        )
        assert (deepl_none.status_code, libre_none.status_code, wrong.status_code) == (
            403,
            403,
            403,
        )
        assert "auth_key" in deepl_none.json()["message"]
        assert "api_key" in libre_none.json()["error"]
        # DeepL's legacy form key: the job is that key's, whichever way it is presented later.
        handle = (
            await client.post(
                "/v2/document", **upload, data={"target_lang": "DE", "auth_key": "alice"}
            )
        ).json()
        document = f"/v2/document/{handle['document_id']}"
        key = {"document_key": handle["document_key"]}
        assert (await client.post(document, data={**key, "auth_key": "alice"})).status_code == 200
        as_header = await client.post(
            document, data=key, headers={"authorization": "DeepL-Auth-Key alice"}
        )
        assert as_header.status_code == 200
        assert (await client.post(document, data={**key, "auth_key": "bob"})).status_code == 404
        # LibreTranslate's web page sends `api_key` in the form; its download link needs none.
        done = await client.post(
            "/libretranslate/translate_file", **upload, data={"target": "de", "api_key": "bob"}
        )
        assert done.status_code == 200, done.text
        download = await client.get(done.json()["translatedFileUrl"])
        assert download.status_code == 200 and b"GOOD MORNING, EVERYONE." in download.content
        link = done.json()["translatedFileUrl"]
        forged = await client.get(link.rsplit("/", 1)[0] + "/not-the-key")
        assert forged.status_code == 404
