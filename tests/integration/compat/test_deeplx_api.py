"""DeepLX's API (OwO-Network/DeepLX) under /deeplx/, driven as its popular clients drive it:
each request below is the one the named client's source builds, sent to this server."""

from __future__ import annotations

import pytest

from tests.support.harness import running

KEYED = {"api_key": ["secret"]}


def _answer(body: dict, data: str, source: str, target: str, method: str = "Free") -> None:
    """DeepLX's answer (`service/service.go`): every field, `id` a number like its own."""
    assert set(body) == {
        "code",
        "id",
        "data",
        "alternatives",
        "source_lang",
        "target_lang",
        "method",
    }
    assert body["code"] == 200 and isinstance(body["id"], int) and body["id"] % 1000 == 0
    assert (body["data"], body["source_lang"], body["target_lang"]) == (data, source, target)
    assert body["alternatives"] == [] and body["method"] == method


async def test_clients_requests_are_answered_in_deeplxs_shape(make_app) -> None:
    async with running(make_app()) as client:
        # windingwind/zotero-pdf-translate, src/modules/services/deeplcustom.ts: the language
        # codes `split("-")[0].toUpperCase()`, a JSON body with a charset.
        zotero = await client.post(
            "/deeplx/translate",
            content=b'{"text":"Good morning","source_lang":"EN","target_lang":"ZH"}',
            headers={"Content-Type": "application/json; charset=utf-8"},
        )
        _answer(zotero.json(), "GOOD MORNING", "EN", "ZH")
        # pot-app/pot-desktop, src/services/translate/deepl/index.jsx (`translate_by_deeplx`):
        # `source_lang` `auto` and its codes from info.ts (`ZH-HANS`, `PT-BR`...).
        pot = await client.post(
            "/deeplx/translate",
            json={
                "source_lang": "auto",
                "target_lang": "ZH-HANS",
                "text": "Die Besprechung wurde auf Donnerstag verschoben.",
            },
        )
        _answer(pot.json(), "DIE BESPRECHUNG WURDE AUF DONNERSTAG VERSCHOBEN.", "DE", "ZH-HANS")
        # mengxi-ream/read-frog, src/utils/host/translate/api/deeplx.ts: ISO codes upper-cased,
        # `ZH-TW` sent as `ZH-HANT`.
        frog = await client.post(
            "/deeplx/translate",
            json={"text": "Hello", "source_lang": "EN", "target_lang": "ZH-HANT"},
        )
        _answer(frog.json(), "HELLO", "EN", "ZH-HANT")
        # DeepLX's own README: a region-tagged target and no source at all.
        plain = await client.post(
            "/deeplx/translate", json={"text": "Guten Tag", "target_lang": "EN-US"}
        )
        _answer(plain.json(), "GUTEN TAG", "DE", "EN-US")
        pro = await client.post(
            "/deeplx/v1/translate", json={"text": "Hi", "source_lang": "EN", "target_lang": "DE"}
        )
        _answer(pro.json(), "HI", "EN", "DE", method="Pro")
        html = await client.post(
            "/deeplx/translate",
            json={
                "text": "<p>Hi <b>you</b></p>",
                "source_lang": "EN",
                "target_lang": "DE",
                "tag_handling": "html",
            },
        )
        assert html.json()["data"] == "<p>HI <b>YOU</b></p>"


async def test_the_deepl_format_endpoint(make_app) -> None:
    """DeepLX's `/v2/translate`: a form or JSON list of texts, translated as one."""
    async with running(make_app()) as client:
        form = await client.post(
            "/deeplx/v2/translate", data={"text": "Hallo Welt, wie geht es?", "target_lang": "EN"}
        )
        assert form.json() == {
            "translations": [{"detected_source_language": "DE", "text": "HALLO WELT, WIE GEHT ES?"}]
        }
        joined = await client.post(
            "/deeplx/v2/translate",
            json={"text": ["Guten Morgen.", "Guten Abend."], "target_lang": "EN"},
        )
        assert joined.json()["translations"][0]["text"] == "GUTEN MORGEN.\nGUTEN ABEND."


@pytest.mark.parametrize(
    ("url", "headers"),
    [
        ("/deeplx/translate", {"Authorization": "Bearer secret"}),
        ("/deeplx/translate", {"Authorization": "DeepL-Auth-Key secret"}),
        # DeepLX's docs: "/translate?token=your_access_token" where no header can be set.
        ("/deeplx/translate?token=secret", {}),
        # Read Frog's default URL for the hosted DeepLX: https://api.deeplx.org/{token}/translate
        # (its __tests__/deeplx-url-builder.test.ts).
        ("/deeplx/secret/translate", {}),
        ("/deeplx/v1/translate?token=secret", {}),
        ("/deeplx/v2/translate?token=secret", {}),
    ],
)
async def test_token_forms(make_app, url: str, headers: dict[str, str]) -> None:
    text = "Guten Morgen"
    body = {"text": [text] if "/v2/" in url else text, "target_lang": "EN"}
    async with running(make_app(**KEYED)) as client:
        answer = await client.post(url, json=body, headers=headers)
        assert answer.status_code == 200, answer.text


@pytest.mark.parametrize(
    ("url", "headers"),
    [
        ("/deeplx/translate", {}),
        ("/deeplx/translate?token=wrong", {}),
        ("/deeplx/wrong/translate", {}),
        ("/deeplx/translate", {"Authorization": "Bearer wrong"}),
    ],
)
async def test_a_bad_token_is_deeplxs_401(make_app, url: str, headers: dict[str, str]) -> None:
    async with running(make_app(**KEYED)) as client:
        refused = await client.post(url, json={"text": "Hi", "target_lang": "DE"}, headers=headers)
        assert refused.status_code == 401
        assert set(refused.json()) == {"code", "message"} and refused.json()["code"] == 401


async def test_errors_in_deeplxs_shape(client) -> None:
    async def error(path: str, body: dict) -> tuple[int, dict]:
        answer = await client.post(path, json=body)
        assert answer.json()["code"] == answer.status_code
        assert set(answer.json()) == {"code", "message"}
        return answer.status_code, answer.json()

    # As DeepLX's `TranslateByDeepLX`: no text is a 404.
    assert await error("/deeplx/translate", {"text": "", "target_lang": "DE"}) == (
        404,
        {"code": 404, "message": "No text to translate"},
    )
    assert (await error("/deeplx/translate", {"target_lang": "DE"}))[0] == 404
    status, body = await error(
        "/deeplx/translate", {"text": "Hi", "target_lang": "DE", "tag_handling": "markdown"}
    )
    assert status == 400 and "tag_handling" in body["message"]
    assert (await error("/deeplx/translate", {"text": "Hi", "target_lang": "XX"}))[0] == 400
    assert (await error("/deeplx/translate", {"text": "Hi"}))[0] == 400
    assert (await error("/deeplx/v2/translate", {"target_lang": "DE"}))[0] == 400


async def test_engine_failure_is_a_503_in_deeplxs_shape(make_app, engine) -> None:
    engine.alive = False
    async with running(make_app()) as client:
        answer = await client.post(
            "/deeplx/translate", json={"text": "Hi", "source_lang": "EN", "target_lang": "DE"}
        )
        assert answer.status_code == 503 and answer.json()["code"] == 503
