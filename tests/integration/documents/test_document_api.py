"""POST /translate/document and its status, result and progress stream, as curl sends them
(multipart forms), over the engine double (which upper-cases what it translates)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest
import srt

from tests.support.estimate_models import estimate_models
from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, eventually, read_until, running

# The stores' contract: every test here runs on SQLite and on PostgreSQL.
pytestmark = pytest.mark.usefixtures("backend")

SRT = (
    b"1\n00:00:01,000 --> 00:00:02,500\nGood morning, everyone.\n\n"
    b"2\n00:00:03,000 --> 00:00:04,000\nWelcome to the talk.\n"
)


def cues(data: bytes) -> list[tuple[int, str, str]]:
    return [
        (cue.index, srt.timedelta_to_srt_timestamp(cue.start), cue.content)
        for cue in srt.parse(data.decode())
    ]


TRANSLATED_CUES = [
    (1, "00:00:01,000", "GOOD MORNING, EVERYONE."),
    (2, "00:00:03,000", "WELCOME TO THE TALK."),
]


def many_lines(count: int) -> bytes:
    return "".join(f"Line number {i} of the document.\n\n" for i in range(count)).encode()


async def submit(
    client: AppClient,
    data: bytes = SRT,
    name: str = "talk.srt",
    headers: dict | None = None,
    **fields: str,
) -> httpx.Response:
    return await client.post(
        "/translate/document",
        files={"file": (name, data)},
        data={"target_lang": "de", **fields},
        headers=headers,
    )


async def finished(client: AppClient, submitted: dict, headers: dict | None = None) -> dict:
    response = await read_until(
        lambda: client.get(submitted["status_url"], headers=headers),
        lambda response: response.json()["status"] in ("done", "error"),
    )
    return dict(response.json())


async def test_curl_like_submit_status_and_result(client: AppClient, engine: FakeEngine) -> None:
    response = await submit(client, source_lang="en")
    assert response.status_code == 202, response.text
    submitted = response.json()
    assert submitted["status"] == "queued"
    # Named in a header too: a load balancer keys its stick table by it.
    assert response.headers["x-document-id"] == submitted["document_id"]
    status = await finished(client, submitted)
    assert status["status"] == "done"
    assert status["format"] == "srt" and status["filename"] == "talk.srt"
    assert status["segments_done"] == status["segments_total"] == 2
    assert status["billed_characters"] == len("Good morning, everyone.Welcome to the talk.")
    result = await client.get(submitted["result_url"])
    assert result.status_code == 200
    assert cues(result.content) == TRANSLATED_CUES
    assert result.headers["content-type"].startswith("application/x-subrip")
    assert "talk.srt" in result.headers["content-disposition"]
    # Documents ask the engine for a later turn than interactive requests.
    assert {options.priority for _, _, options in engine.requests} == {1}
    # The key may come as a header too; the result stays until its retention time ends.
    again = await client.get(
        f"/translate/document/{submitted['document_id']}/result",
        headers={"X-Document-Key": submitted["document_key"]},
    )
    assert again.content == result.content


async def test_progress_stream_ends_with_done(make_app) -> None:
    engine = FakeEngine(token_delay=0.002)
    async with running(make_app(engine)) as client:
        submitted = (await submit(client, many_lines(40), "notes.txt")).json()
        async with client.stream("GET", submitted["events_url"]) as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            events = [
                line.removeprefix("data: ")
                async for line in stream.aiter_lines()
                if line.startswith("data: ")
            ]
    assert events[-1] == "[DONE]"
    statuses = [json.loads(event) for event in events[:-1]]
    done = [s["segments_done"] for s in statuses]
    assert done == sorted(done) and len(statuses) > 2  # progress after each batch
    assert statuses[-1]["status"] == "done" and statuses[-1]["segments_done"] == 40
    assert statuses[-1]["seconds_remaining"] == 0


async def test_glossary_and_formality_reach_the_prompt(
    client: AppClient, engine: FakeEngine
) -> None:
    submitted = (
        await submit(
            client,
            b"The widget is ready.\n",
            "a.txt",
            source_lang="en",
            formality="formal",
            glossary=json.dumps({"widget": "Dingsbums"}),
        )
    ).json()
    assert (await finished(client, submitted))["status"] == "done"
    prompt = engine.decode(engine.requests[-1][1])
    assert "Dingsbums" in prompt and "formal" in prompt


@pytest.mark.parametrize(
    ("fields", "name", "data", "status", "code"),
    [
        ({}, "talk.exe", b"MZ\x00\x00", 400, "unsupported_document_format"),
        ({}, "broken.docx", b"not a zip", 400, "invalid_document"),
        ({"target_lang": ""}, "talk.srt", SRT, 400, None),
        ({"formality": "rude"}, "talk.srt", SRT, 400, None),
        ({"glossary": "[1]"}, "talk.srt", SRT, 400, None),
        # Refused before any work, not failed later as a job.
        ({"target_lang": "not a language"}, "talk.srt", SRT, 400, "unsupported_language"),
        ({"source_lang": "xx-?"}, "talk.srt", SRT, 400, "unsupported_language"),
        ({"candidates": "5"}, "talk.srt", SRT, 400, None),
        ({"candidates": "two"}, "talk.srt", SRT, 400, None),
        ({"min_quality": "1.5"}, "talk.srt", SRT, 400, None),
    ],
)
async def test_refusals(
    client: AppClient, fields: dict, name: str, data: bytes, status: int, code: str | None
) -> None:
    response = await submit(client, data, name, **fields)
    assert response.status_code == status, response.text
    if code:
        assert response.json()["error"]["code"] == code


async def test_not_multipart_is_a_400(client: AppClient) -> None:
    response = await client.post("/translate/document", json={"target_lang": "de"})
    assert response.status_code == 400
    assert response.json()["error"]["param"] == "file"


async def test_limits(make_app) -> None:
    engine = FakeEngine(token_delay=0.05)  # slow: the first documents are still in flight
    app = make_app(engine, max_document_bytes=2000, max_document_chars=500, max_documents_per_key=2)
    async with running(app) as client:
        too_big = await submit(client, b"x" * 2001, "big.txt")
        assert too_big.status_code == 413
        assert too_big.json()["error"]["code"] == "document_too_large"
        too_long = await submit(client, b"word " * 300, "long.txt")
        assert too_long.status_code == 413
        assert too_long.json()["error"]["code"] == "document_too_long"
        assert (await submit(client)).status_code == 202
        assert (await submit(client)).status_code == 202
        third = await submit(client)
        assert third.status_code == 429
        assert third.json()["error"]["code"] == "too_many_documents"


async def test_a_document_larger_than_the_json_body_limit_is_accepted(make_app) -> None:
    async with running(make_app(max_body_bytes=1000)) as client:
        response = await submit(client, many_lines(100), "long.txt")
        assert response.status_code == 202, response.text
        assert (await finished(client, response.json()))["status"] == "done"


async def test_a_job_needs_its_key(client: AppClient) -> None:
    submitted = (await submit(client)).json()
    job = f"/translate/document/{submitted['document_id']}"
    for path in (job, f"{job}/result", f"{job}/events"):
        wrong = await client.get(path, params={"key": "not-the-key"})
        assert wrong.status_code == 404, path
        assert wrong.json()["error"]["code"] == "document_not_found"
        assert (await client.get(path)).status_code == 400  # no key at all
    unknown = await client.get("/translate/document/ABC", params={"key": "x"})
    assert unknown.status_code == 404


async def test_one_api_key_cannot_read_another_keys_job(make_app) -> None:
    async with running(make_app(api_key=["alice", "bob"])) as client:
        alice = {"Authorization": "Bearer alice"}
        bob = {"Authorization": "Bearer bob"}
        submitted = (await submit(client, headers=alice)).json()
        assert (await finished(client, submitted, alice))["status"] == "done"
        # Bob has the id and even the key, and still cannot read Alice's job.
        for url in (submitted["status_url"], submitted["result_url"]):
            assert (await client.get(url, headers=bob)).status_code == 404
        assert (await client.get(submitted["result_url"], headers=alice)).status_code == 200
        assert (await client.get(submitted["status_url"])).status_code == 401


async def test_a_result_before_it_is_done_is_a_409(make_app) -> None:
    async with running(make_app(FakeEngine(token_delay=0.05))) as client:
        submitted = (await submit(client)).json()
        early = await client.get(submitted["result_url"])
        assert early.status_code == 409
        assert early.json()["error"]["code"] == "document_not_ready"


async def test_jobs_by_status_metric(client: AppClient) -> None:
    submitted = (await submit(client)).json()
    await finished(client, submitted)
    # The jobs are counted once the run has ended, just after the job is seen done.
    for _ in range(200):
        metrics = (await client.get("/metrics")).text
        if 'translate_documents{status="done"} 1.0' in metrics:
            break
        await asyncio.sleep(0.01)
    assert 'translate_documents{status="done"} 1.0' in metrics
    assert 'translate_documents{status="queued"} 0.0' in metrics


async def test_a_cancelled_job_stops_its_engine_requests_and_is_gone(make_app) -> None:
    engine = FakeEngine()
    engine.hang = True  # the job's engine requests stay in flight until it is cancelled
    async with running(make_app(engine)) as client:
        submitted = (await submit(client)).json()

        async def events() -> list[str]:
            async with client.stream("GET", submitted["events_url"]) as stream:
                return [
                    line.removeprefix("data: ")
                    async for line in stream.aiter_lines()
                    if line.startswith("data: ")
                ]

        watching = asyncio.create_task(events())
        await eventually(engine.unfinished_requests)
        job = f"/translate/document/{submitted['document_id']}"
        assert (await client.delete(job, params={"key": "not-the-key"})).status_code == 404
        cancelled = await client.delete(submitted["status_url"])  # the URL carries the key
        assert cancelled.status_code == 200, cancelled.text
        assert cancelled.json()["status"] == "translating"  # as it stood when stopped
        assert engine.unfinished_requests() == 0
        streamed = await asyncio.wait_for(watching, 5)
        assert streamed[-1] == "[DONE]"
        last = json.loads(streamed[-2])
        assert (last["status"], last["error_message"]) == ("error", "The job was cancelled.")
        gone = await client.get(submitted["status_url"])
        assert gone.status_code == 404
        assert (await client.delete(submitted["status_url"])).status_code == 404
        allowed = (await client.options(job)).headers["allow"]
        assert {"GET", "DELETE"} <= {method.strip() for method in allowed.split(",")}


async def test_a_finished_job_leaves_one_log_line_with_its_timings(client: AppClient) -> None:
    from structlog.testing import capture_logs

    with capture_logs() as logs:
        submitted = (await submit(client, source_lang="en")).json()
        assert (await finished(client, submitted))["status"] == "done"
    lines = [entry for entry in logs if entry["event"] == "document_job"]
    assert len(lines) == 1
    line = lines[0]
    assert line["document_id"] == submitted["document_id"] and line["status"] == "done"
    assert (line["format"], line["segments"], line["target_lang"]) == ("srt", 2, "de")
    assert line["billed_characters"] == len("Good morning, everyone.Welcome to the talk.")
    assert line["error"] is None
    # Where the job's time went: reading the file, translating, writing it back.
    assert line["total_s"] >= line["translate_s"] > 0
    assert line["extract_s"] >= 0 and line["rebuild_s"] >= 0
    assert "key" not in line and submitted["document_key"] not in repr(line)


CATALOG = b"""msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "Good morning, everyone."
msgstr ""

msgid "Welcome to the talk."
msgstr ""

msgid "Thank you for coming."
msgstr ""
"""


def _german(prompt: str, options: object) -> str:
    """Translates two messages and sends the third back untranslated (an echo)."""
    from tests.support.fakes import _SOURCE

    source = _SOURCE.search(prompt).group(1)  # type: ignore[union-attr]
    return {
        "Good morning, everyone.": "Guten Morgen zusammen.",
        "Welcome to the talk.": "Willkommen zum Vortrag.",
    }.get(source, source)


async def test_a_catalog_marks_fuzzy_only_the_translations_that_need_review(
    make_app, tmp_path: Path
) -> None:
    import polib

    engine = FakeEngine(responder=_german)
    models = estimate_models(tmp_path)
    async with running(
        make_app(engine, quality_guard=True, quality_estimate_models=models)
    ) as client:
        submitted = (
            await submit(client, CATALOG, "app.po", source_lang="en", candidates="2")
        ).json()
        status = await finished(client, submitted)
        result = await client.get(submitted["result_url"])
    entries = {entry.msgid: entry for entry in polib.pofile(result.content.decode())}
    assert entries["Thank you for coming."].flags == ["fuzzy"]  # the echo needs review
    assert entries["Good morning, everyone."].flags == []
    assert entries["Welcome to the talk."].msgstr == "Willkommen zum Vortrag."
    assert status["needs_review"] == 1
    (item,) = status["review"]
    assert (item["segment"], item["source"]) == (2, "Thank you for coming.")
    assert 0.0 <= item["estimate"] < 0.5
    # The job's options reached every batch: two candidates, a sampled one beside the greedy.
    assert any(options.n == 1 and options.temperature > 0 for _, _, options in engine.requests)


async def test_a_subtitle_jobs_status_lists_what_needs_review(make_app, tmp_path: Path) -> None:
    engine = FakeEngine(responder=_german)  # the second cue comes back unchanged
    subtitles = SRT.replace(b"Welcome to the talk.", b"Thank you for coming.")
    models = estimate_models(tmp_path)
    async with running(
        make_app(engine, quality_guard=True, quality_estimate_models=models)
    ) as client:
        status = await finished(client, (await submit(client, subtitles, source_lang="en")).json())
    assert status["needs_review"] == 1
    assert [item["translation"] for item in status["review"]] == ["Thank you for coming."]
