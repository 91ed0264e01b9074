"""`Idempotency-Key` and identical requests in flight (`http.idempotency`), around the engine
double: a replay answers the first answer without running (or billing) again, another body
under the same key is refused, and identical requests in flight share one run."""

from __future__ import annotations

import asyncio

from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient

BODY = {"text": "Good morning", "source_lang": "en", "target_lang": "de"}


def _usage_headers(key: str = "k1") -> dict[str, str]:
    return {"Authorization": f"DeepL-Auth-Key {key}"}


async def test_a_key_replays_its_first_answer_without_running_again(
    client: AppClient, engine: FakeEngine
) -> None:
    first = await client.post("/translate", json=BODY, headers={"Idempotency-Key": "a1"})
    again = await client.post("/translate", json=BODY, headers={"Idempotency-Key": "a1"})
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert again.headers["idempotent-replayed"] == "true"
    assert "idempotent-replayed" not in first.headers
    assert len(engine.requests) == 1


async def test_a_key_sent_with_another_body_is_refused(
    client: AppClient, engine: FakeEngine
) -> None:
    await client.post("/translate", json=BODY, headers={"Idempotency-Key": "a2"})
    other = await client.post(
        "/translate", json={**BODY, "text": "Good night"}, headers={"Idempotency-Key": "a2"}
    )
    assert other.status_code == 422
    assert other.json()["error"]["code"] == "idempotency_key_reused"
    assert other.json()["error"]["param"] == "Idempotency-Key"
    assert len(engine.requests) == 1


async def test_a_replay_while_the_first_runs_waits_for_it(
    client: AppClient, engine: FakeEngine
) -> None:
    engine.token_delay = 0.05
    headers = {"Idempotency-Key": "a3"}
    first, second = await asyncio.gather(
        client.post("/v1/chat/completions", json=_chat(), headers=headers),
        _later(client.post("/v1/chat/completions", json=_chat(), headers=headers)),
    )
    assert first.status_code == second.status_code == 200
    assert second.json() == first.json()
    assert second.headers["idempotent-replayed"] == "true"
    assert len(engine.requests) == 1


async def test_a_failed_first_run_is_not_kept(client: AppClient, engine: FakeEngine) -> None:
    headers = {"Idempotency-Key": "a4"}
    refused = await client.post("/translate", json={**BODY, "target_lang": "xx-nope"}, headers={})
    assert refused.status_code == 400  # a client error without a key: nothing kept
    engine.fail_every_request = True
    failed = await client.post("/translate", json=BODY, headers=headers)
    assert failed.status_code >= 500
    engine.fail_every_request = False
    retried = await client.post("/translate", json=BODY, headers=headers)
    assert retried.status_code == 200
    assert "idempotent-replayed" not in retried.headers


async def test_identical_deepl_requests_in_flight_share_one_run_billed_once(
    client: AppClient, engine: FakeEngine
) -> None:
    engine.token_delay = 0.05
    form = {"text": "Good morning", "target_lang": "DE"}
    first, second = await asyncio.gather(
        client.post("/v2/translate", data=form, headers=_usage_headers()),
        _later(client.post("/v2/translate", data=form, headers=_usage_headers())),
    )
    assert second.json() == first.json()
    assert second.headers["idempotent-replayed"] == "true"
    assert len(engine.requests) == 1
    usage = await client.get("/v2/usage", headers=_usage_headers())
    assert usage.json()["character_count"] == len("Good morning")
    # Once answered, the same request runs again (and is billed again).
    third = await client.post("/v2/translate", data=form, headers=_usage_headers())
    assert "idempotent-replayed" not in third.headers
    usage = await client.get("/v2/usage", headers=_usage_headers())
    assert usage.json()["character_count"] == 2 * len("Good morning")


async def test_other_callers_never_share_a_run(client: AppClient, engine: FakeEngine) -> None:
    engine.token_delay = 0.05
    form = {"text": "Good morning", "target_lang": "DE"}
    _, second = await asyncio.gather(
        client.post("/v2/translate", data=form, headers=_usage_headers("k1")),
        _later(client.post("/v2/translate", data=form, headers=_usage_headers("k2"))),
    )
    assert "idempotent-replayed" not in second.headers
    for key in ("k1", "k2"):
        usage = await client.get("/v2/usage", headers=_usage_headers(key))
        assert usage.json()["character_count"] == len("Good morning")


def _chat() -> dict[str, object]:
    return {"model": "fake-model", "messages": [{"role": "user", "content": "hello there"}]}


async def _later(request):  # type: ignore[no-untyped-def]
    await asyncio.sleep(0.1)
    return await request


async def test_a_memory_import_sent_again_with_its_key_is_merged_once(client: AppClient) -> None:
    memory = (await client.post("/memories", json={"name": "m"})).json()["id"]
    csv = b"en,de\nGood morning,Guten Morgen\n"
    # httpx draws a new multipart boundary each time, as a retry does.
    answers = [
        await client.post(
            f"/memories/{memory}/import",
            files={"file": ("terms.csv", csv)},
            headers={"Idempotency-Key": "import-1"},
        )
        for _ in range(2)
    ]
    assert answers[0].status_code == answers[1].status_code == 200
    assert answers[1].headers["idempotent-replayed"] == "true"
    assert answers[1].json() == answers[0].json()
    assert answers[0].json()["added"] == 1


async def test_identical_chat_requests_without_a_key_each_run(
    client: AppClient, engine: FakeEngine
) -> None:
    # Chat answers are sampled: the same request sent twice at once may ask for two answers
    # (and overload tests send just that), so only an `Idempotency-Key` joins them.
    engine.token_delay = 0.05
    first, second = await asyncio.gather(
        client.post("/v1/chat/completions", json=_chat()),
        _later(client.post("/v1/chat/completions", json=_chat())),
    )
    assert first.status_code == second.status_code == 200
    assert "idempotent-replayed" not in second.headers
    assert len(engine.requests) == 2
