"""CORS: off by default for every route but LibreTranslate's, and `--cors-origins` opens the
whole API to the origins it names (preflights answered before the API key is asked for)."""

from __future__ import annotations

import pytest

from translate_server.settings import SettingsError, load_settings

from tests.support.harness import running

TRANSLATE = {"text": "Good morning", "source_lang": "en", "target_lang": "de"}
PAGE = "https://app.example.com"
PREFLIGHT = {
    "Origin": PAGE,
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "authorization, content-type",
}


async def test_off_by_default_except_on_libretranslate_routes(make_app) -> None:
    async with running(make_app()) as client:
        answer = await client.post("/translate", json=TRANSLATE, headers={"Origin": PAGE})
        assert answer.status_code == 200
        assert "access-control-allow-origin" not in answer.headers
        preflight = await client.options("/translate", headers=PREFLIGHT)
        # Litestar's own answer to OPTIONS (its `Allow`), which a browser takes as a refusal.
        assert not any(name.startswith("access-control-") for name in preflight.headers)
        libre = await client.get("/libretranslate/languages", headers={"Origin": PAGE})
        assert libre.headers["access-control-allow-origin"] == "*"


async def test_a_named_origin_may_call_every_api(make_app) -> None:
    async with running(make_app(cors_origins=[PAGE], api_key=["secret"])) as client:
        # The preflight carries no key: answered before the gate would refuse it.
        preflight = await client.options("/v1/chat/completions", headers=PREFLIGHT)
        assert preflight.status_code == 204
        assert preflight.headers["access-control-allow-origin"] == PAGE
        assert "Authorization" in preflight.headers["access-control-allow-headers"]
        assert "POST" in preflight.headers["access-control-allow-methods"]
        assert preflight.headers["vary"] == "Origin"

        keyed = {"Origin": PAGE, "Authorization": "Bearer secret"}
        answer = await client.post("/translate", json=TRANSLATE, headers=keyed)
        assert answer.status_code == 200
        assert answer.headers["access-control-allow-origin"] == PAGE
        assert "X-Request-ID" in answer.headers["access-control-expose-headers"]
        # A refusal is readable by the page too: it can tell the user the key is wrong.
        refused = await client.post("/translate", json=TRANSLATE, headers={"Origin": PAGE})
        assert refused.status_code == 401
        assert refused.headers["access-control-allow-origin"] == PAGE

        deepl = await client.post(
            "/v2/translate",
            json={"text": ["Hello"], "target_lang": "DE"},
            headers={"Origin": PAGE, "Authorization": "DeepL-Auth-Key secret"},
        )
        assert deepl.status_code == 200
        assert deepl.headers["access-control-allow-origin"] == PAGE

        other = await client.post(
            "/translate",
            json=TRANSLATE,
            headers={"Origin": "https://elsewhere.example", "Authorization": "Bearer secret"},
        )
        assert other.status_code == 200
        assert "access-control-allow-origin" not in other.headers
        other_preflight = await client.options(
            "/translate", headers={**PREFLIGHT, "Origin": "https://elsewhere.example"}
        )
        assert other_preflight.status_code == 401  # not a preflight we answer: the gate's


async def test_any_origin(make_app) -> None:
    async with running(make_app(cors_origins=["*"])) as client:
        answer = await client.post(
            "/translate", json=TRANSLATE, headers={"Origin": "https://anyone.example"}
        )
        assert answer.headers["access-control-allow-origin"] == "*"
        assert "vary" not in answer.headers
        # LibreTranslate's routes keep LibreTranslate's own headers.
        libre = await client.options(
            "/libretranslate/translate", headers={**PREFLIGHT, "Origin": "https://anyone.example"}
        )
        assert libre.status_code == 204
        assert libre.headers["access-control-allow-methods"] == "GET, POST"


def test_origins_are_written_as_browsers_send_them() -> None:
    settings = load_settings(
        {"cors_origins": ["https://App.Example.com/", "http://localhost:5173", "*"]}, environ={}
    )
    assert settings.server.cors_origins == (
        "https://app.example.com",
        "http://localhost:5173",
        "*",
    )
    from_env = load_settings(
        environ={"TRANSLATE_CORS_ORIGINS": "https://a.example, https://b.example"}
    )
    assert from_env.server.cors_origins == ("https://a.example", "https://b.example")


@pytest.mark.parametrize(
    "origin", ["https://app.example.com/page", "app.example.com", "ftp://x.example", "https://"]
)
def test_a_page_url_is_not_an_origin(origin: str) -> None:
    with pytest.raises(SettingsError, match="not an origin"):
        load_settings({"cors_origins": [origin]}, environ={})
