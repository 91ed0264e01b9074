"""OpenAI's Files and Batches through the official `openai` SDK, in-process, over the engine
double (which echoes a chat's last user message as `echo: ...` and upper-cases what it
translates): upload a 1,000-line file, run it, read both files back, cancel a second batch."""

from __future__ import annotations

import asyncio
import json

import openai
import pytest

from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, eventually, running

# The stores' contract: every test here runs on SQLite and on PostgreSQL.
pytestmark = pytest.mark.usefixtures("backend")

LINES = 1000


def sdk(client: AppClient) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url=f"{client.base_url}/v1", api_key="unused", http_client=client, max_retries=0
    )


def chat_line(i: int, url: str = "/v1/chat/completions") -> dict:
    body: dict = {"model": "fake-model", "messages": [{"role": "user", "content": f"hello {i}"}]}
    if i % 100 == 7:  # a request the route itself refuses: its error goes to the error file
        body["messages"] = []
    return {"custom_id": f"request-{i}", "method": "POST", "url": url, "body": body}


def jsonl(lines: list[dict]) -> bytes:
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


async def finished(client: openai.AsyncOpenAI, batch_id: str) -> openai.types.Batch:
    async def ended() -> openai.types.Batch | None:
        batch = await client.batches.retrieve(batch_id)
        return batch if batch.status in ("completed", "failed", "cancelled", "expired") else None

    for _ in range(3000):
        if (found := await ended()) is not None:
            return found
        await asyncio.sleep(0.02)
    raise AssertionError(f"batch {batch_id} did not end")


async def test_a_thousand_lines_through_the_sdk(client: AppClient) -> None:
    api = sdk(client)
    uploaded = await api.files.create(
        file=("requests.jsonl", jsonl([chat_line(i) for i in range(LINES)])), purpose="batch"
    )
    assert uploaded.purpose == "batch" and uploaded.filename == "requests.jsonl"
    batch = await api.batches.create(
        input_file_id=uploaded.id,
        endpoint="/v1/chat/completions",
        completion_window="24h",
        metadata={"catalog": "spring"},
    )
    assert batch.status == "validating" and batch.metadata == {"catalog": "spring"}
    batch = await finished(api, batch.id)
    assert batch.status == "completed", batch
    refused = [i for i in range(LINES) if i % 100 == 7]
    assert batch.request_counts.total == LINES
    assert batch.request_counts.failed == len(refused)
    assert batch.request_counts.completed == LINES - len(refused)
    assert batch.in_progress_at and batch.finalizing_at and batch.completed_at
    assert batch.usage is not None and batch.usage.input_tokens > 0
    output = (await api.files.content(batch.output_file_id)).text.splitlines()
    errors = (await api.files.content(batch.error_file_id)).text.splitlines()
    answers = {line["custom_id"]: line for line in map(json.loads, output)}
    failures = {line["custom_id"]: line for line in map(json.loads, errors)}
    assert set(answers) | set(failures) == {f"request-{i}" for i in range(LINES)}
    assert set(failures) == {f"request-{i}" for i in refused}
    for i in (0, 999):
        response = answers[f"request-{i}"]["response"]
        assert response["status_code"] == 200
        assert response["body"]["choices"][0]["message"]["content"] == f"echo: hello {i}"
    refusal = failures["request-7"]["response"]
    assert refusal["status_code"] == 400
    assert refusal["body"]["error"]["param"] == "messages"
    listed = await api.batches.list(limit=5)
    assert [found.id for found in listed.data] == [batch.id]
    files = await api.files.list()
    assert {found.purpose for found in files.data} == {"batch", "batch_output"}


async def test_cancelling_a_batch_midway(make_app) -> None:
    engine = FakeEngine(token_delay=0.002)
    async with running(make_app(engine)) as client:
        api = sdk(client)
        uploaded = await api.files.create(
            file=("r.jsonl", jsonl([chat_line(i) for i in range(1, 400) if i % 100 != 7])),
            purpose="batch",
        )
        batch = await api.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
        await eventually(lambda: len(engine.requests) >= 40, timeout=30)
        cancelling = await api.batches.cancel(batch.id)
        assert cancelling.status in ("cancelling", "cancelled")
        batch = await finished(api, batch.id)
        assert batch.status == "cancelled" and batch.cancelled_at
        done = batch.request_counts.completed
        assert 0 < done < batch.request_counts.total
        output = (await api.files.content(batch.output_file_id)).text.splitlines()
        errors = [
            json.loads(line)
            for line in (await api.files.content(batch.error_file_id)).text.splitlines()
        ]
        assert len(output) == done
        assert len(output) + len(errors) == batch.request_counts.total
        assert {line["error"]["code"] for line in errors} == {"batch_cancelled"}
