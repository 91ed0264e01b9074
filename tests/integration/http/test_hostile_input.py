"""Broken and hostile bodies get a 4xx in the error envelope: never a 5xx, never a hang."""

from __future__ import annotations

import json

import pytest

from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient

CHAT = "/v1/chat/completions"


def body(value: object) -> bytes:
    return json.dumps(value).encode()


@pytest.mark.parametrize(
    ("path", "content", "content_type", "status"),
    [
        (
            "/translate",
            b'{"text": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
            "application/json",
            400,
        ),
        (
            CHAT,
            b'{"messages": [], "stream_options": ' + b'{"a":' * 50_000 + b"1" + b"}" * 50_001,
            "application/json",
            400,
        ),
        (
            CHAT,
            b'{"messages": [{"role": "user", "content": "x"}], "temperature": 1e400}',
            "application/json",
            400,
        ),
        (
            CHAT,
            b'{"messages": [{"role": "user", "content": "x"}], "n": 1' + b"0" * 40 + b"}",
            "application/json",
            400,
        ),
        (
            CHAT,
            b'{"messages": [{"role": "user", "content": "x"}], "temperature": NaN}',
            "application/json",
            400,
        ),
        (
            CHAT,
            b'{"messages": [{"role": "user", "content": "x"}], "seed": 1' + b"0" * 30 + b"}",
            "application/json",
            400,
        ),
        (
            "/translate",
            body({"text": "hi", "source_lang": "en", "target_lang": "de"}),
            "text/plain",
            415,
        ),
        ("/translate", b"text=hi&source_lang=en", "application/x-www-form-urlencoded", 415),
        (CHAT, b"", "application/json", 400),
        (CHAT, b"[1, 2, 3]", "application/json", 400),
        (CHAT, b"null", "application/json", 400),
        (CHAT, b'"just a string"', "application/json", 400),
        (
            "/translate",
            body({"text": "hi", "source_lang": "e" * 10_000, "target_lang": "de"}),
            "application/json",
            400,
        ),
        (
            "/translate",
            body({"text": ["x"] * 10_000, "source_lang": "en", "target_lang": "de"}),
            "application/json",
            400,
        ),
        (
            CHAT,
            body({"messages": [{"role": "user", "content": "x"}] * 1000}),
            "application/json",
            400,
        ),
        (
            CHAT,
            body({"messages": [{"role": "user", "content": "x"}], "stop": ["a"] * 100}),
            "application/json",
            400,
        ),
        (CHAT, b'{"messages": [{"role": "user", "content": "\xc3\x28"}]}', "application/json", 400),
    ],
)
async def test_hostile_bodies_are_refused(
    client: AppClient,
    engine: FakeEngine,
    path: str,
    content: bytes,
    content_type: str,
    status: int,
) -> None:
    response = await client.post(path, content=content, headers={"content-type": content_type})
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["message"] and error["type"] == "invalid_request_error"
    assert engine.requests == []


async def test_control_characters_are_just_text(client: AppClient) -> None:
    response = await client.post(
        "/translate", json={"text": "a\u0000b\u202ec", "source_lang": "en", "target_lang": "de"}
    )
    assert response.status_code == 200
    assert response.json()["translation"] == "A\u0000B\u202eC"
