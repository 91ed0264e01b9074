"""LibreTranslate's Python client (`libretranslatepy`) against this server, over a socket."""

from __future__ import annotations

import asyncio
import urllib.error
from collections.abc import AsyncIterator

import pytest
from libretranslatepy import LibreTranslateAPI

from tests.support.fakes import FakeEngine
from tests.support.harness import running, served


@pytest.fixture
async def base_url(make_app) -> AsyncIterator[str]:
    async with served(make_app()) as url:
        yield f"{url}/libretranslate/"


async def test_client_translates_detects_and_lists(base_url: str, engine: FakeEngine) -> None:
    client = LibreTranslateAPI(base_url)
    assert await asyncio.to_thread(client.translate, "Good morning", "en", "de") == "GOOD MORNING"
    detected = await asyncio.to_thread(client.detect, "Die Besprechung wurde verschoben.")
    assert detected[0]["language"] == "de" and 50 < detected[0]["confidence"] <= 100
    languages = await asyncio.to_thread(client.languages)
    assert {"code", "name", "targets"} <= set(languages[0])
    assert "de" in [language["code"] for language in languages]


async def test_client_sees_errors(base_url: str) -> None:
    client = LibreTranslateAPI(base_url)
    with pytest.raises(urllib.error.HTTPError) as caught:
        await asyncio.to_thread(client.translate, "Hi", "en", "xx")
    assert caught.value.code == 400


async def test_auto_source_lists_and_html(make_app) -> None:
    async with running(make_app()) as client:
        body = (
            await client.post(
                "/libretranslate/translate",
                json={
                    "q": [
                        "Die Besprechung wurde auf Donnerstag verschoben.",
                        "Hallo Welt, wie geht es?",
                    ],
                    "source": "auto",
                    "target": "en",
                },
            )
        ).json()
        assert [d["language"] for d in body["detectedLanguage"]] == ["de", "de"]
        assert len(body["translatedText"]) == 2
        html = (
            await client.post(
                "/libretranslate/translate",
                json={
                    "q": "<p>Hi <i>you</i></p>",
                    "source": "en",
                    "target": "de",
                    "format": "html",
                },
            )
        ).json()
        assert html == {"translatedText": "<p>HI <i>YOU</i></p>"}
        error = await client.post("/libretranslate/translate", json={"q": "Hi"})
        assert error.status_code == 400 and set(error.json()) == {"error"}
