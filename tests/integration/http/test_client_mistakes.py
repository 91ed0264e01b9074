"""Odd but legal inputs, and clients' mistakes, are never answered with a 5xx."""

from __future__ import annotations

from structlog.testing import capture_logs

from tests.support.harness import AppClient, running


async def test_a_deepl_batch_with_a_markup_only_text(client: AppClient) -> None:
    response = await client.post(
        "/v2/translate",
        json={
            "text": ["<b></b>", "<p>Hello there, friend.</p>"],
            "target_lang": "DE",
            "source_lang": "EN",
            "tag_handling": "html",
        },
    )
    assert response.status_code == 200, response.text
    texts = response.json()["translations"]
    assert texts[0]["text"] == "<b></b>"
    assert texts[1]["text"].startswith("<p>") and texts[1]["text"].endswith("</p>")


async def test_a_libretranslate_batch_with_a_markup_only_text(client: AppClient) -> None:
    response = await client.post(
        "/libretranslate/translate",
        json={
            "q": ["<br/>", "<p>Hello there, friend.</p>"],
            "source": "auto",
            "target": "de",
            "format": "html",
        },
    )
    assert response.status_code == 200, response.text
    assert response.json()["translatedText"][0] == "<br/>"


async def test_a_markup_only_text_is_answered_as_it_is(client: AppClient) -> None:
    response = await client.post(
        "/translate",
        json={
            "text": "<img src=x><!-- nothing to translate -->",
            "target_lang": "de",
            "format": "html",
        },
    )
    assert response.status_code == 200, response.text
    assert response.json()["translation"] == "<img src=x><!-- nothing to translate -->"


async def test_a_chat_template_refusal_is_the_clients_400(client: AppClient) -> None:
    client.app.state.services.engine.template_refusal = "System role not supported"
    response = await client.post(
        "/v1/chat/completions",
        json={
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Hi"},
            ]
        },
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["param"] == "messages" and "System role not supported" in error["message"]
    streamed = await client.post(
        "/v1/chat/completions",
        json={
            "stream": True,
            "messages": [{"role": "system", "content": "x"}, {"role": "user", "content": "Hi"}],
        },
    )
    assert streamed.status_code == 400


async def test_a_trailing_slash_passes_the_same_checks_and_is_logged_as_its_route(
    client: AppClient,
) -> None:
    with capture_logs() as logs:
        refused = await client.post(
            "/translate/", content=b"text=hi", headers={"content-type": "text/plain"}
        )
        served = await client.post(
            "/translate/", json={"text": "Hello.", "target_lang": "de", "source_lang": "en"}
        )
    assert refused.status_code == 415
    assert served.status_code == 200
    assert [line["route"] for line in logs if line["event"] == "request"] == [
        "/translate",
        "/translate",
    ]


async def test_a_request_id_that_could_forge_log_fields_is_replaced(client: AppClient) -> None:
    forged = "abc status=200 route=/admin"
    response = await client.get("/health", headers={"x-request-id": forged})
    assert response.headers["x-request-id"] != forged
    assert len(response.headers["x-request-id"]) == 32


async def test_a_non_ascii_api_key_works(make_app) -> None:
    key = "schlüssel-für-alle"
    async with running(make_app(api_key=[key])) as keyed:
        ok = await keyed.get("/v1/models", headers={"authorization": b"Bearer " + key.encode()})
        wrong = await keyed.get("/v1/models", headers={"authorization": "Bearer nope"})
    assert ok.status_code == 200
    assert wrong.status_code == 401
