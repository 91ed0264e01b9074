"""The rest of LibreTranslate's API its clients touch: keys in the body, alternatives, the web
page's settings, suggestions turned off, CORS and its own language codes."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from libretranslatepy import LibreTranslateAPI

from translate_server.inference.engine import SamplingOptions

from tests.support.fakes import FakeEngine, fake_translator
from tests.support.harness import served


async def _http(method: str, url: str, **kwargs) -> httpx.Response:
    async with httpx.AsyncClient(timeout=30) as client:
        return await client.request(method, url, **kwargs)


@pytest.mark.parametrize("overrides", [{"api_key": ["secret"]}])
async def test_api_key_in_the_body(make_app, overrides: dict) -> None:
    async with served(make_app(**overrides)) as url:
        base = f"{url}/libretranslate/"
        good = LibreTranslateAPI(base, api_key="secret")
        assert await asyncio.to_thread(good.translate, "Hi", "en", "de") == "HI"
        as_json = await _http(
            "POST",
            base + "translate",
            json={"q": "Hi", "source": "en", "target": "de", "api_key": "secret"},
        )
        assert as_json.status_code == 200
        wrong = await _http(
            "POST",
            base + "translate",
            json={"q": "Hi", "source": "en", "target": "de", "api_key": "nope"},
        )
        assert wrong.status_code == 403 and set(wrong.json()) == {"error"}
        missing = await _http("POST", base + "detect", data={"q": "Hallo Welt"})
        assert missing.status_code == 403
        # As LibreTranslate's own: the languages and the page's settings need no key.
        assert await asyncio.to_thread(LibreTranslateAPI(base).languages)
        settings = (await _http("GET", base + "frontend/settings")).json()
        assert settings["apiKeys"] is True and settings["keyRequired"] is True
        # The other APIs still want the header.
        assert (
            await _http(
                "POST",
                f"{url}/translate",
                json={"text": "Hi", "target_lang": "de", "api_key": "secret"},
            )
        ).status_code == 401


def _varied(prompt: str, options: SamplingOptions) -> str:
    text = fake_translator(prompt, options)
    return text if options.temperature == 0 else text.lower()


async def test_alternatives(make_app) -> None:
    engine = FakeEngine(responder=_varied)
    async with served(make_app(engine)) as url:
        single = await _http(
            "POST",
            f"{url}/libretranslate/translate",
            json={"q": "Good morning", "source": "en", "target": "de", "alternatives": 2},
        )
        body = single.json()
        assert body["translatedText"] == "GOOD MORNING"
        assert body["alternatives"] == ["good morning #0", "good morning #1"]
        sampled = [options for _, _, options in engine.requests if options.n == 2]
        assert sampled and sampled[0].temperature > 0
        batch = await _http(
            "POST",
            f"{url}/libretranslate/translate",
            json={"q": ["Hi", "Bye"], "source": "en", "target": "de", "alternatives": 1},
        )
        assert batch.json()["alternatives"] == [["hi"], ["bye"]]
        plain = await _http(
            "POST",
            f"{url}/libretranslate/translate",
            json={"q": "Hi", "source": "en", "target": "de"},
        )
        assert "alternatives" not in plain.json()
        too_many = await _http(
            "POST",
            f"{url}/libretranslate/translate",
            json={"q": "Hi", "source": "en", "target": "de", "alternatives": 4},
        )
        assert too_many.status_code == 400


async def test_frontend_settings(make_app) -> None:
    async with served(make_app()) as url:
        settings = (await _http("GET", f"{url}/libretranslate/frontend/settings")).json()
        assert settings["suggestions"] is True and settings["apiKeys"] is False
        assert settings["charLimit"] > 0
        assert settings["language"]["source"]["code"] == "auto"
        # translate_file is served: its web page offers files, of the formats we read.
        assert settings["filesTranslation"] is True
        assert {".srt", ".docx", ".po", ".txt"} <= set(settings["supportedFilesFormat"])


async def test_suggestions_turned_off(make_app) -> None:
    async with served(make_app(suggestions_memory="")) as url:
        settings = (await _http("GET", f"{url}/libretranslate/frontend/settings")).json()
        assert settings["suggestions"] is False
        suggest = await _http(
            "POST",
            f"{url}/libretranslate/suggest",
            data={"q": "Hello", "s": "Hola", "source": "en", "target": "es"},
        )
        assert suggest.status_code == 403
        assert suggest.json() == {"error": "Suggestions are disabled on this server."}


async def test_cors_for_browsers(make_app) -> None:
    async with served(make_app(api_key=["secret"])) as url:
        preflight = await _http(
            "OPTIONS",
            f"{url}/libretranslate/translate",
            headers={"Origin": "https://example.org", "Access-Control-Request-Method": "POST"},
        )
        assert preflight.status_code == 204
        assert preflight.headers["access-control-allow-origin"] == "*"
        assert "Content-Type" in preflight.headers["access-control-allow-headers"]
        answered = await _http(
            "GET", f"{url}/libretranslate/languages", headers={"Origin": "https://example.org"}
        )
        assert answered.headers["access-control-allow-origin"] == "*"
        assert "access-control-allow-origin" not in (await _http("GET", f"{url}/health")).headers


async def test_zt_and_pb_both_ways(make_app, engine: FakeEngine) -> None:
    async with served(make_app()) as url:
        codes = [
            language["code"]
            for language in await asyncio.to_thread(
                LibreTranslateAPI(f"{url}/libretranslate/").languages
            )
        ]
        assert {"pb", "zt"} <= set(codes)
        client = LibreTranslateAPI(f"{url}/libretranslate/")
        assert await asyncio.to_thread(client.translate, "Hello", "en", "pb") == "HELLO"
        assert "to Portuguese (Brazil)" in engine.decode(engine.requests[-1][1])
        await asyncio.to_thread(client.translate, "Hello", "en", "zt")
        assert "to Chinese (Traditional)" in engine.decode(engine.requests[-1][1])
