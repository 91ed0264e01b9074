"""What every route shares: the error envelope for the framework's own errors, request ids,
health, metrics, the canonical log line, the OpenAPI document and API keys."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from translate_server.cli import openapi_document

from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, running

TRANSLATE = {"text": "Good morning", "source_lang": "en", "target_lang": "de"}


def assert_envelope(response, status: int) -> dict:  # type: ignore[no-untyped-def]
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["code"] is None or isinstance(error["code"], str)
    return error


async def test_malformed_json(client: AppClient) -> None:
    response = await client.post(
        "/translate", content=b'{"text": "hi",', headers={"content-type": "application/json"}
    )
    assert_envelope(response, 400)


async def test_invalid_utf8(client: AppClient) -> None:
    response = await client.post(
        "/v1/chat/completions",
        content=b'{"messages": "\xff\xfe"}',
        headers={"content-type": "application/json"},
    )
    assert_envelope(response, 400)


async def test_unknown_route_and_wrong_method(client: AppClient) -> None:
    error = assert_envelope(await client.get("/nowhere"), 404)
    assert error["code"] == "not_found"
    error = assert_envelope(await client.get("/translate"), 405)
    assert error["code"] == "method_not_allowed"


async def test_body_too_large(make_app) -> None:
    async with running(make_app(max_body_bytes=1000)) as client:
        response = await client.post("/translate", json={**TRANSLATE, "text": "x" * 5000})
    assert_envelope(response, 413)


async def test_text_over_the_character_limit(make_app) -> None:
    async with running(make_app(max_text_chars=10)) as client:
        response = await client.post("/translate", json={**TRANSLATE, "text": "x" * 11})
    assert assert_envelope(response, 400)["param"] == "text"


async def test_request_id_is_echoed_or_generated(client: AppClient) -> None:
    given = await client.post("/translate", json=TRANSLATE, headers={"x-request-id": "abc-123"})
    assert given.headers["x-request-id"] == "abc-123"
    generated = await client.post("/translate", json=TRANSLATE)
    assert len(generated.headers["x-request-id"]) == 32
    # Reused client ids never collide inside the engine.
    again = await client.post("/translate", json=TRANSLATE, headers={"x-request-id": "abc-123"})
    assert again.status_code == 200


async def test_one_log_line_per_request_with_timings(client: AppClient, engine: FakeEngine) -> None:
    with capture_logs() as logs:
        await client.post("/translate", json=TRANSLATE, headers={"x-request-id": "req-1"})
        await client.post(
            "/translate", json={**TRANSLATE, "text": "Good evening, everyone.", "stream": True}
        )
        await client.get("/nowhere")
        await client.get("/translate/document/ABC", params={"key": "k"})
    lines = [entry for entry in logs if entry["event"] == "request"]
    assert len(lines) == 4
    ok, streamed, missing, job = lines
    # A route with a path parameter is named by its template, never by the raw path.
    assert job["route"] == "/translate/document/{document_id}" and job["status"] == 404
    assert ok["route"] == "/translate" and ok["status"] == 200 and ok["model"] == "fake-model"
    assert ok["prompt_tokens"] > 0 and ok["completion_tokens"] == 2
    for timing in ("queue_ms", "engine_ms", "total_ms"):
        assert ok[timing] >= 0
    assert ok["queue_ms"] + ok["engine_ms"] <= ok["total_ms"]
    # Not streamed: the engine hands over the whole answer at once, so there is no first
    # token to time.
    assert "ttft_ms" not in ok and "generation_ms" not in ok
    for timing in ("queue_ms", "ttft_ms", "generation_ms", "engine_ms", "total_ms"):
        assert streamed[timing] >= 0
    assert streamed["queue_ms"] <= streamed["ttft_ms"] <= streamed["total_ms"]
    assert missing["route"] == "unmatched" and missing["status"] == 404
    assert missing["error_code"] == "not_found" and "error_code" not in ok


async def test_the_log_line_names_the_error_of_every_refusal(make_app) -> None:
    async with running(make_app(api_key=["secret"])) as client:
        auth = {"authorization": "Bearer secret"}
        with capture_logs() as logs:
            await client.post("/translate", json=TRANSLATE)  # refused by the gate
            await client.post(
                "/translate", json={**TRANSLATE, "target_lang": "xx-nowhere"}, headers=auth
            )  # refused by the service
            await client.post("/translate", json={"text": 1}, headers=auth)  # by validation
            await client.post("/v2/translate", json={"target_lang": "DE"})  # a compat shape
    codes = [entry.get("error_code") for entry in logs if entry["event"] == "request"]
    assert codes[0] == "invalid_api_key"
    assert codes[1] is not None and codes[2] == "invalid_value"
    assert codes[3] == "invalid_api_key"


async def test_health(client: AppClient, engine: FakeEngine) -> None:
    assert (await client.get("/health")).json() == {"status": "ok"}
    assert (await client.get("/health/live")).status_code == 200
    engine.alive = False
    assert_envelope(await client.get("/health"), 503)
    assert_envelope(await client.get("/health/live"), 503)
    error = assert_envelope(await client.post("/translate", json=TRANSLATE), 503)
    assert error["code"] == "engine_unavailable"


async def test_metrics(client: AppClient) -> None:
    await client.post("/translate", json=TRANSLATE)
    await client.post(
        "/v1/chat/completions",
        json={"messages": [{"role": "user", "content": "hi"}], "stream": True},
    )
    text = (await client.get("/metrics")).text
    assert 'translate_requests_total{route="/translate",status="200"} 1.0' in text
    assert 'translate_requests_total{route="/v1/chat/completions",status="200"} 1.0' in text
    assert 'translate_completion_tokens_total{route="/translate"} 2.0' in text
    # Time to first token is a streamed request's: the chat stream has one, /translate none.
    assert 'translate_time_to_first_token_seconds_count{route="/v1/chat/completions"} 1.0' in text
    assert 'translate_time_to_first_token_seconds_count{route="/translate"} 0.0' in text
    assert 'translate_request_duration_seconds_bucket{le="+Inf",route="/translate"} 1.0' in text
    assert "translate_requests_in_flight" in text
    assert "translate_requests_waiting 0.0" in text


async def test_committed_openapi_document_is_what_the_app_serves(
    client: AppClient,
) -> None:
    committed = Path(__file__).parents[3] / "openapi" / "openapi.json"
    served = (await client.get("/docs/openapi.json")).json()
    assert json.loads(committed.read_text()) == served, (
        "openapi/openapi.json is stale: run `make openapi`"
    )
    assert json.loads(openapi_document()) == served
    assert {"/translate", "/v1/chat/completions", "/v1/models", "/health"} <= set(served["paths"])


async def test_the_docs_page_can_send_either_kind_of_key(make_app) -> None:
    """The document declares the two schemes the gate accepts, so /docs's Authorize sends a
    key; each, sent as Swagger UI sends it, is accepted."""
    async with running(make_app(api_key=["k-one"])) as client:
        document = (await client.get("/docs/openapi.json")).json()
        schemes = document["components"]["securitySchemes"]
        assert schemes["bearer"] == {**schemes["bearer"], "type": "http", "scheme": "bearer"}
        deepl = schemes["deepl_auth_key"]
        assert (deepl["type"], deepl["in"], deepl["name"]) == ("apiKey", "header", "Authorization")
        # Either scheme, or none where the server has no keys; health never needs one.
        assert document["security"] == [{"bearer": []}, {"deepl_auth_key": []}, {}]
        assert document["paths"]["/health"]["get"]["security"] == [{}]
        for header in ("Bearer k-one", "DeepL-Auth-Key k-one"):
            answer = await client.post(
                "/translate", json=TRANSLATE, headers={"authorization": header}
            )
            assert answer.status_code == 200, (header, answer.text)


@pytest.mark.parametrize("hash_seed", ["0", "1", "5"])
def test_the_openapi_document_is_the_same_whatever_the_hash_seed(hash_seed: str) -> None:
    """A list built from a set (a handler's parameters, say) would change with Python's
    string hashing, from one process to the next: the committed document must not."""
    made = subprocess.run(
        [
            sys.executable,
            "-c",
            "from translate_server.cli import openapi_document as o; print(o(), end='')",
        ],
        env={**os.environ, "PYTHONHASHSEED": hash_seed},
        capture_output=True,
        text=True,
        check=True,
    )
    committed = Path(__file__).parents[3] / "openapi" / "openapi.json"
    assert json.loads(made.stdout) == json.loads(committed.read_text())


@pytest.fixture
async def keyed(make_app):  # type: ignore[no-untyped-def]
    async with running(make_app(api_key=["k-one", "k-two"])) as client:
        yield client


async def test_api_keys(keyed: AppClient) -> None:
    with capture_logs() as logs:
        error = assert_envelope(await keyed.post("/translate", json=TRANSLATE), 401)
        assert error["type"] == "authentication_error"
        wrong = await keyed.post(
            "/translate", json=TRANSLATE, headers={"authorization": "Bearer k-three"}
        )
        assert_envelope(wrong, 401)
    for key in ("k-one", "k-two"):
        ok = await keyed.post(
            "/translate", json=TRANSLATE, headers={"authorization": f"Bearer {key}"}
        )
        assert ok.status_code == 200
    models = await keyed.get("/v1/models", headers={"authorization": "Bearer k-one"})
    assert models.status_code == 200
    assert (await keyed.get("/health")).status_code == 200
    assert (await keyed.get("/metrics")).status_code == 200
    assert "k-three" not in repr(logs)


async def test_metrics_behind_the_key(make_app) -> None:
    async with running(make_app(api_key=["k"], metrics_require_key=True)) as client:
        assert_envelope(await client.get("/metrics"), 401)
        ok = await client.get("/metrics", headers={"authorization": "Bearer k"})
        assert ok.status_code == 200
