from __future__ import annotations

import asyncio
import json
import re

from tests.support.fakes import FakeEngine
from tests.support.harness import eventually, running

PARAGRAPH = (
    "This paragraph has several sentences. Each of them is short! "
    "Together they are long enough to need splitting? Yes, they are."
)


def _document(paragraphs: int) -> str:
    return "\n\n".join(f"{i}. {PARAGRAPH}" for i in range(paragraphs)) + "\n"


async def test_a_long_document_is_split_translated_concurrently_and_reassembled(make_app) -> None:
    engine = FakeEngine(max_model_len=512, token_delay=0.01)
    document = "  Title line\n\n" + _document(12) + "\n   \n"
    async with running(make_app(engine)) as client:
        response = await client.post(
            "/translate", json={"text": document, "source_lang": "en", "target_lang": "de"}
        )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["translation"] == document.upper()  # every blank line and space in place
    assert body["finish_reason"] == "stop"
    assert len(engine.requests) > 3
    assert all(len(ids) < 512 for _, ids, _ in engine.requests)
    assert body["usage"]["prompt_tokens"] == sum(len(ids) for _, ids, _ in engine.requests)


async def test_pieces_are_submitted_at_once(make_app) -> None:
    body = {"text": _document(8), "source_lang": "en", "target_lang": "de"}
    counted = FakeEngine(max_model_len=512)
    async with running(make_app(counted)) as client:
        assert (await client.post("/translate", json=body)).status_code == 200
    pieces = len(counted.requests)
    assert pieces > 3
    # The engine answers nothing until released: every piece in flight at once, or a wait
    # that runs out.
    engine = FakeEngine(max_model_len=512)
    engine.hang = True
    async with running(make_app(engine)) as client:
        task = asyncio.create_task(client.post("/translate", json=body))
        await eventually(lambda: len(engine.unfinished) == pieces)
        engine.hang = False
        assert (await task).status_code == 200
    assert len(engine.requests) == pieces


async def test_a_cut_piece_is_reported_not_hidden(make_app) -> None:
    engine = FakeEngine(max_model_len=512)
    engine.responder = lambda prompt, options: "loop " * 10_000
    async with running(make_app(engine)) as client:
        body = (
            await client.post(
                "/translate", json={"text": _document(6), "source_lang": "en", "target_lang": "de"}
            )
        ).json()
    assert body["finish_reason"] == "length"


async def test_a_dense_piece_is_split_again_once_tokenized(make_app) -> None:
    class DenseEngine(FakeEngine):
        TOKEN = re.compile(r"[^\x00-\x7f]|[\x00-\x7f]+")  # one token per Chinese character

    engine = DenseEngine(max_model_len=600)
    text = "会议已改到星期四下午。" * 30
    async with running(make_app(engine)) as client:
        response = await client.post(
            "/translate", json={"text": text, "source_lang": "zh", "target_lang": "en"}
        )
    assert response.status_code == 200, response.text
    assert response.json()["translation"] == text
    assert len(engine.requests) >= 2


async def test_a_dense_piece_split_again_streams_whole(make_app) -> None:
    class DenseEngine(FakeEngine):
        TOKEN = re.compile(r"[^\x00-\x7f]|[\x00-\x7f]+")  # one token per Chinese character

    engine = DenseEngine(max_model_len=600)
    text = "会议已改到星期四下午。" * 30
    async with (
        running(make_app(engine)) as client,
        client.stream(
            "POST",
            "/translate",
            json={"text": text, "source_lang": "zh", "target_lang": "en", "stream": True},
        ) as response,
    ):
        assert response.status_code == 200
        events = [
            json.loads(line[len("data: ") :])
            async for line in response.aiter_lines()
            if line.startswith("data: {")
        ]
        assert client.app.state.services.admission.in_flight == 0
    assert "".join(event["delta"] for event in events) == text
    assert events[-1]["finish_reason"] == "stop"
    assert len(engine.requests) >= 2


async def test_admission_counts_the_pieces(make_app) -> None:
    engine = FakeEngine(max_model_len=512)
    async with running(make_app(engine, max_num_seqs=1, max_queued_requests=1)) as client:
        response = await client.post(
            "/translate", json={"text": _document(10), "source_lang": "en", "target_lang": "de"}
        )
        assert response.status_code == 200  # larger than the capacity: runs alone
        admission = client.app.state.services.admission
        assert admission.in_flight == 0


async def test_a_piece_split_again_gets_its_slots_even_when_the_server_is_full(make_app) -> None:
    """Once admitted, a request whose piece turns out too dense is not refused midway."""

    class DenseEngine(FakeEngine):
        TOKEN = re.compile(r"[^\x00-\x7f]|[\x00-\x7f]+")  # one token per Chinese character

    engine = DenseEngine(max_model_len=600)
    text = "会议已改到星期四下午。" * 30
    async with running(make_app(engine, max_num_seqs=1, max_queued_requests=0)) as client:
        response = await client.post(
            "/translate", json={"text": text, "source_lang": "zh", "target_lang": "en"}
        )
        assert response.status_code == 200, response.text
        assert client.app.state.services.admission.in_flight == 0
    assert response.json()["translation"] == text
    assert len(engine.requests) >= 2
