"""/v1/files and /v1/batches over plain HTTP and the engine double: every endpoint a line may
call, the checks made before any work, the per-key limits and whose files and batches are
whose; and a batch's lines at the documents' low priority, so interactive requests keep theirs."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import AsyncGenerator, Mapping
from typing import Any

import httpx
from sqlalchemy import update

from translate_server.batches.keys import BATCHES
from translate_server.documents.translator import DOCUMENT_PRIORITY
from translate_server.inference.engine import EngineOutput, SamplingOptions
from translate_server.storage.job_tables import openai_batches

from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, eventually, running

ENDED = ("completed", "failed", "cancelled", "expired")


def line(i: int, url: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"custom_id": f"r{i}", "method": "POST", "url": url, "body": body}


def jsonl(lines: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(found) + "\n" for found in lines).encode()


async def upload(
    client: AppClient, data: bytes, headers: dict[str, str] | None = None
) -> httpx.Response:
    return await client.post(
        "/v1/files", files={"file": ("in.jsonl", data)}, data={"purpose": "batch"}, headers=headers
    )


async def run_batch(
    client: AppClient, lines: list[dict[str, Any]], endpoint: str
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    uploaded = await upload(client, jsonl(lines))
    assert uploaded.status_code == 200, uploaded.text
    created = await client.post(
        "/v1/batches",
        json={"input_file_id": uploaded.json()["id"], "endpoint": endpoint},
    )
    assert created.status_code == 200, created.text
    batch_id = created.json()["id"]

    async def ended() -> dict[str, Any] | None:
        batch = (await client.get(f"/v1/batches/{batch_id}")).json()
        return batch if batch["status"] in ENDED else None

    batch = None
    while batch is None:
        batch = await ended()
        await asyncio.sleep(0.02)
    output = []
    if batch["output_file_id"]:
        content = await client.get(f"/v1/files/{batch['output_file_id']}/content")
        output = [json.loads(found) for found in content.text.splitlines()]
    return batch, output


async def test_every_endpoint_runs_through_its_route_s_service(client: AppClient) -> None:
    cases = {
        "/v1/completions": {"model": "fake-model", "prompt": "Once upon", "max_tokens": 5},
        "/v1/responses": {"model": "fake-model", "input": "hello"},
        "/translate": {"text": "Good morning.", "source_lang": "en", "target_lang": "de"},
    }
    for endpoint, body in cases.items():
        batch, output = await run_batch(client, [line(0, endpoint, body)], endpoint)
        assert batch["status"] == "completed", batch
        [answer] = output
        assert answer["custom_id"] == "r0" and answer["response"]["status_code"] == 200
        found = answer["response"]["body"]
        if endpoint == "/translate":
            assert found["translation"] == "GOOD MORNING."
        elif endpoint == "/v1/responses":
            assert found["object"] == "response" and found["output"][0]["content"][0]["text"]
        else:
            assert found["object"] == "text_completion"


async def test_a_wrong_line_is_refused_at_upload_naming_it(client: AppClient) -> None:
    good = line(0, "/translate", {"text": "a", "target_lang": "de"})
    cases = [
        (b"not json\n", "Line 1"),
        (jsonl([good, {**good, "url": "/v1/embeddings"}]), "Line 2"),
        (jsonl([good, {**good, "method": "GET", "custom_id": "x"}]), "Line 2"),
        (jsonl([good, good]), "Line 2"),  # its custom_id again
        (b"\n", "no requests"),
    ]
    for data, named in cases:
        response = await upload(client, data)
        assert response.status_code == 400, response.text
        assert named in response.json()["error"]["message"]
    wrong_purpose = await client.post(
        "/v1/files", files={"file": ("in.jsonl", jsonl([good]))}, data={"purpose": "fine-tune"}
    )
    assert wrong_purpose.json()["error"]["param"] == "purpose"


async def test_lines_of_another_endpoint_fail_the_batch_at_validation(client: AppClient) -> None:
    lines = [line(0, "/translate", {"text": "a", "target_lang": "de"})]
    batch, output = await run_batch(client, lines, "/v1/chat/completions")
    assert batch["status"] == "failed" and output == []
    [error] = batch["errors"]["data"]
    assert error["code"] == "mismatched_endpoint" and error["line"] == 1


async def test_files_and_batches_are_their_key_s_and_limited_per_key(
    make_app, engine: FakeEngine
) -> None:
    engine.hang = True  # the first batch stays in progress
    app = make_app(
        api_key=["alice", "bob"],
        max_batch_files_per_key=1,
        max_batches_per_key=1,
        max_documents_per_key=1,
    )
    alice, bob = ({"Authorization": f"Bearer {key}"} for key in ("alice", "bob"))
    data = jsonl(
        [line(0, "/translate", {"text": "Good morning.", "source_lang": "en", "target_lang": "de"})]
    )
    async with running(app) as client:
        first = (await upload(client, data, alice)).json()
        assert (await upload(client, data, alice)).json()["error"]["code"] == "too_many_files"
        assert (await client.get(f"/v1/files/{first['id']}", headers=bob)).status_code == 404
        assert (await client.get("/v1/files", headers=bob)).json()["data"] == []
        assert (await upload(client, data, bob)).status_code == 200
        body = {"input_file_id": first["id"], "endpoint": "/translate"}
        made = await client.post("/v1/batches", json=body, headers=alice)
        assert made.status_code == 200, made.text
        # Bob cannot run, read or cancel Alice's.
        assert (await client.post("/v1/batches", json=body, headers=bob)).status_code == 404
        batch_id = made.json()["id"]
        assert (await client.get(f"/v1/batches/{batch_id}", headers=bob)).status_code == 404
        cancel = await client.post(f"/v1/batches/{batch_id}/cancel", headers=bob)
        assert cancel.status_code == 404
        again = await client.post("/v1/batches", json=body, headers=alice)
        assert again.status_code == 429
        assert again.json()["error"]["code"] == "too_many_batches"
        # A batch in progress is not one of the key's documents in translation.
        document = await client.post(
            "/translate/document",
            files={"file": ("a.txt", b"Hello.")},
            data={"target_lang": "de"},
            headers=alice,
        )
        assert document.status_code == 202, document.text
        cancelled = await client.post(f"/v1/batches/{batch_id}/cancel", headers=alice)
        assert cancelled.json()["status"] == "cancelling"
        deleted = await client.delete(f"/v1/files/{first['id']}", headers=alice)
        assert deleted.json() == {"id": first["id"], "object": "file", "deleted": True}


class PriorityEngine(FakeEngine):
    """The engine double, counting the requests of each priority in it at once."""

    def __init__(self) -> None:
        super().__init__(token_delay=0.002)
        self.running: Counter[int] = Counter()
        self.most: Counter[int] = Counter()
        self.seen: Counter[int] = Counter()
        self.alongside_batch = 0  # interactive requests that ran while batch lines did

    async def generate(
        self,
        prompt_token_ids: list[int],
        options: SamplingOptions,
        request_id: str,
        trace_headers: Mapping[str, str] | None = None,
    ) -> AsyncGenerator[EngineOutput, None]:
        priority = options.priority
        self.running[priority] += 1
        self.seen[priority] += 1
        self.most[priority] = max(self.most[priority], self.running[priority])
        if priority == 0 and self.running[DOCUMENT_PRIORITY]:
            self.alongside_batch += 1
        try:
            async for output in super().generate(
                prompt_token_ids, options, request_id, trace_headers
            ):
                yield output
        finally:
            self.running[priority] -= 1


async def test_interactive_requests_keep_their_priority_during_a_batch(make_app) -> None:
    engine = PriorityEngine()
    # Eight slots: the batch may fill half (--document-share), at the low priority.
    app = make_app(engine, max_num_seqs=8, max_queued_requests=8)
    chat = {"model": "fake-model", "messages": [{"role": "user", "content": "hi"}]}
    async with running(app) as client:
        uploaded = await upload(
            client, jsonl([line(i, "/v1/chat/completions", chat) for i in range(300)])
        )
        created = await client.post(
            "/v1/batches",
            json={"input_file_id": uploaded.json()["id"], "endpoint": "/v1/chat/completions"},
        )
        await eventually(lambda: engine.running[DOCUMENT_PRIORITY] >= 4, timeout=30)
        # Eight different requests: identical ones in flight would share one run.
        asked = [{**chat, "messages": [{"role": "user", "content": f"hi {n}"}]} for n in range(8)]
        answers = await asyncio.gather(
            *(client.post("/v1/chat/completions", json=body) for body in asked)
        )
        assert [answer.status_code for answer in answers] == [200] * 8
        batch_id = created.json()["id"]
        while (await client.get(f"/v1/batches/{batch_id}")).json()["status"] not in ENDED:
            await asyncio.sleep(0.05)
    # Interactive requests ran beside the batch, at the default priority, none refused: the
    # batch's lines never took the interactive admission's places, nor more than its share.
    assert engine.alongside_batch == 8
    assert engine.seen[0] == 8 and engine.seen[DOCUMENT_PRIORITY] == 300
    assert engine.most[DOCUMENT_PRIORITY] == 4


async def test_a_batch_past_its_window_expires_with_the_rest_unrun(
    make_app, engine: FakeEngine
) -> None:
    engine.hang = True  # the first lines wait in the engine
    chat = {"model": "fake-model", "messages": [{"role": "user", "content": "hi"}]}
    async with running(make_app(engine)) as client:
        uploaded = await upload(
            client, jsonl([line(i, "/v1/chat/completions", chat) for i in range(200)])
        )
        created = await client.post(
            "/v1/batches",
            json={"input_file_id": uploaded.json()["id"], "endpoint": "/v1/chat/completions"},
        )
        batch_id = created.json()["id"]
        await eventually(lambda: len(engine.requests) >= 1, timeout=30)
        # Its 24 hours are over (as a server would find a day later).
        store = client.app.state.services[BATCHES].batches
        ended_window = update(openai_batches).where(openai_batches.c.id == batch_id)
        await store.database.write(lambda c: c.execute(ended_window.values(expires_at=0)))
        engine.hang = False
        while (batch := (await client.get(f"/v1/batches/{batch_id}")).json())[
            "status"
        ] not in ENDED:
            await asyncio.sleep(0.02)
        assert batch["status"] == "expired" and batch["expired_at"]
        done = batch["request_counts"]["completed"]
        assert 0 < done < 200  # the lines in flight finished; no new one began
        errors = await client.get(f"/v1/files/{batch['error_file_id']}/content")
        unrun = [json.loads(found) for found in errors.text.splitlines()]
        assert len(unrun) == 200 - done
        assert {found["error"]["code"] for found in unrun} == {"batch_expired"}
