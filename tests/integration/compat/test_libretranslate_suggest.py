"""LibreTranslate's /suggest, kept for real: a suggestion sent as LibreTranslate's clients
send it (libretranslatepy's request shape: a form of q, s, source, target and api_key) goes
into the key's `suggestions` memory, made on first use, and /translate with that memory then
answers the text with the suggestion. Its 400s are LibreTranslate's own."""

from __future__ import annotations

import asyncio
import json
from urllib import parse, request
from urllib.error import HTTPError

import httpx
import pytest

from tests.support.fakes import FakeEngine
from tests.support.harness import served

# The suggestions are kept in the memory store: every test runs on SQLite and PostgreSQL.
pytestmark = pytest.mark.usefixtures("backend")

KEYS = {"api_key": ["alice", "bob"]}


def suggest_as_libretranslatepy(
    base: str, q: str, s: str, source: str, target: str, api_key: str | None = None
) -> tuple[int, dict]:
    """What libretranslatepy 2.1 does for each of its methods (it has none for /suggest): the
    fields url-encoded as the body of a POST through urllib, the key as `api_key`."""
    params = {"q": q, "s": s, "source": source, "target": target}
    if api_key is not None:
        params["api_key"] = api_key
    sent = request.Request(base + "suggest", data=parse.urlencode(params).encode())
    try:
        with request.urlopen(sent, timeout=30) as response:
            return response.status, json.loads(response.read().decode())
    except HTTPError as refused:
        return refused.code, json.loads(refused.read().decode())


async def _suggest(base: str, *args: str | None) -> tuple[int, dict]:
    return await asyncio.to_thread(suggest_as_libretranslatepy, base, *args)  # type: ignore[arg-type]


async def _memories(url: str, key: str | None = None) -> list[dict]:
    headers = {"authorization": f"Bearer {key}"} if key else {}
    async with httpx.AsyncClient(timeout=30) as client:
        listed = await client.get(f"{url}/memories", headers=headers)
        return listed.json()["data"]


async def test_a_suggestion_teaches_the_keys_memory(make_app, engine: FakeEngine) -> None:
    async with served(make_app(**KEYS)) as url:
        base = f"{url}/libretranslate/"
        answer = await _suggest(base, "Good morning", "Guten Morgen!", "en", "de", "alice")
        assert answer == (200, {"success": True})
        # A second one (its source detected) goes into the same memory.
        detected = await _suggest(
            base,
            "The weather is lovely today.",
            "Das Wetter ist heute schön.",
            "auto",
            "de",
            "alice",
        )
        assert detected == (200, {"success": True})
        mine = await _memories(url, "alice")
        assert [(m["name"], m["entries"]) for m in mine] == [("suggestions", 2)]
        assert await _memories(url, "bob") == []

        async with httpx.AsyncClient(timeout=30) as client:
            entries = await client.get(
                f"{url}/memories/{mine[0]['id']}/entries",
                headers={"authorization": "Bearer alice"},
            )
            assert [(e["source_lang"], e["note"]) for e in entries.json()["data"]] == [
                ("en", "LibreTranslate suggestion"),
                ("en", "LibreTranslate suggestion"),
            ]
            translated = await client.post(
                f"{url}/translate",
                headers={"authorization": "Bearer alice"},
                json={
                    "text": "Good  morning",
                    "source_lang": "en",
                    "target_lang": "de",
                    "memory": mine[0]["id"],
                },
            )
        assert translated.json()["translation"] == "Guten Morgen!"
        assert not engine.requests

        # A key's suggestions are its own: bob's go into a memory of bob's.
        assert (await _suggest(base, "Hi", "Servus", "en", "de", "bob"))[0] == 200
        assert [m["entries"] for m in await _memories(url, "bob")] == [1]
        assert (await _suggest(base, "Hi", "Servus", "en", "de", "mallory"))[0] == 403


async def test_the_memory_is_named_by_the_setting(make_app) -> None:
    app = make_app(suggestions_memory="reviewed")
    async with served(app) as url, httpx.AsyncClient(timeout=30) as client:
        sent = await client.post(
            f"{url}/libretranslate/suggest",
            json={"q": "Thanks", "s": "Danke", "source": "en", "target": "de"},
        )
        assert sent.json() == {"success": True}
        listed = (await client.get(f"{url}/memories")).json()["data"]
    assert [(m["name"], m["entries"]) for m in listed] == [("reviewed", 1)]


async def test_libretranslates_own_400s(make_app) -> None:
    async with served(make_app()) as url:
        base = f"{url}/libretranslate/"
        for fields, missing in (
            (("", "Hola", "en", "es"), "q"),
            (("Hello", "", "en", "es"), "s"),
            (("Hello", "Hola", "", "es"), "source"),
            (("Hello", "Hola", "en", ""), "target"),
        ):
            assert await _suggest(base, *fields) == (
                400,
                {"error": f"Invalid request: missing {missing} parameter"},
            )
        unknown = await _suggest(base, "Hello", "Hola", "en", "xx-nonsense")
        assert unknown[0] == 400 and "xx-nonsense" in unknown[1]["error"]
        assert await _memories(url) == []
