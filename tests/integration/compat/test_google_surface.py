"""Google Cloud Translation's wire, as its other clients (plugins, extensions, plain HTTP)
send it: parameters in the query, a form or a JSON body, on GET or POST; answers in `data`;
errors in Google's envelope; keys as `key`, `X-Goog-Api-Key` or a bearer token; v3's text
methods beside DeepL's own `/v3` routes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, eventually, running

V2 = "/language/translate/v2"
V3 = "/v3/projects/my-project/locations/global"
KEY = "google-key"


@pytest.fixture
async def keyed(make_app) -> AsyncIterator[AppClient]:
    async with running(make_app(api_key=[KEY])) as client:
        yield client


def translations(response) -> list[dict]:
    assert response.status_code == 200, response.text
    return response.json()["data"]["translations"]


def google_error(response, status: int) -> dict:
    """The error's body, checked to be Google's v2 envelope with `status`."""
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert set(error) == {"code", "message", "errors", "status", "details"}
    assert error["code"] == status
    [item] = error["errors"]
    assert item["message"] == error["message"] and item["domain"] == "global"
    [info] = error["details"]
    assert info["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"
    return error


async def test_every_field_as_json(client: AppClient, engine: FakeEngine) -> None:
    response = await client.post(
        V2,
        json={
            "q": ["Good morning", "<i>See</i> you"],
            "target": "pt-PT",
            "source": "en",
            "format": "html",
            "model": "base",
        },
    )
    assert translations(response) == [
        {"translatedText": "GOOD MORNING", "model": "base"},
        {"translatedText": "<i>SEE</i> YOU", "model": "base"},
    ]
    prompt = engine.decode(engine.requests[0][1])
    assert "from English to Portuguese (Portugal)" in prompt


async def test_one_q_as_a_string_and_nulls_as_the_official_client_sends_them(
    client: AppClient,
) -> None:
    response = await client.post(
        V2,
        json={"q": "Good morning", "target": "de", "source": None, "format": None, "cid": []},
    )
    assert translations(response) == [
        {"translatedText": "GOOD MORNING", "detectedSourceLanguage": "en"}
    ]


async def test_repeated_q_in_a_form_and_in_the_query(client: AppClient) -> None:
    form = await client.post(
        V2,
        data={"q": ["Good morning", "See you"], "target": "de", "source": "en", "format": "text"},
    )
    query = await client.get(
        V2, params=[("q", "Good morning"), ("q", "See you"), ("target", "de"), ("source", "en")]
    )
    expected = [{"translatedText": "GOOD MORNING"}, {"translatedText": "SEE YOU"}]
    assert translations(form) == translations(query) == expected
    # A single `q` in a form is still a list of one.
    single = await client.post(V2, data={"q": "Good morning", "target": "de", "source": "en"})
    assert translations(single) == [{"translatedText": "GOOD MORNING"}]


async def test_parameters_split_between_the_query_and_the_body(client: AppClient) -> None:
    response = await client.post(
        V2, params={"target": "de", "format": "text"}, json={"q": ["<b>Hi</b> there, friend"]}
    )
    assert translations(response)[0]["translatedText"] == "<B>HI</B> THERE, FRIEND"
    # The body wins over the query.
    both = await client.post(
        V2, params={"target": "xx"}, data={"q": "Good morning", "target": "de"}
    )
    assert translations(both)[0]["translatedText"] == "GOOD MORNING"


async def test_html_is_the_default_format(client: AppClient) -> None:
    html = await client.post(
        V2, json={"q": "Tom &amp; <b>Jerry</b>", "target": "de", "source": "en"}
    )
    assert translations(html) == [{"translatedText": "TOM &amp; <b>JERRY</b>"}]


async def test_detect_by_get_and_post(client: AppClient) -> None:
    posted = await client.post(
        f"{V2}/detect", json={"q": ["Die Besprechung wurde verschoben.", "…"]}
    )
    got = await client.get(f"{V2}/detect", params={"q": "Die Besprechung wurde verschoben."})
    for response in (posted, got):
        assert response.status_code == 200
    detections = posted.json()["data"]["detections"]
    assert [[d["language"] for d in each] for each in detections] == [["de"], ["und"]]
    assert detections[0][0]["isReliable"] is False
    assert got.json()["data"]["detections"][0][0]["language"] == "de"


async def test_detecting_many_long_texts(client: AppClient) -> None:
    texts = ["Die Besprechung wurde verschoben. " * 40, "La réunion a été reportée. " * 40] * 3
    response = await client.post(f"{V2}/detect", json={"q": texts})
    detections = response.json()["data"]["detections"]
    assert [[d["language"] for d in each] for each in detections] == [["de"], ["fr"]] * 3


async def test_languages_with_and_without_names(client: AppClient) -> None:
    bare = (await client.get(f"{V2}/languages")).json()["data"]["languages"]
    assert {"language": "iw"} in bare and all(set(entry) == {"language"} for entry in bare)
    named = (await client.post(f"{V2}/languages", data={"target": "zh-CN"})).json()
    assert {"language": "en", "name": "英语"} in named["data"]["languages"]


@pytest.mark.parametrize(
    ("body", "location", "reason"),
    [
        ({"q": "Hi"}, "target", "required"),
        ({"target": "de"}, "q", "required"),
        ({"q": "Hi", "target": "klingonish"}, "target", "invalid"),
        ({"q": "Hi", "target": "de", "source": "xx"}, "source", "invalid"),
        ({"q": "Hi", "target": "de", "format": "xml"}, "format", "invalid"),
        ({"q": "Hi", "target": "de", "model": "not-served"}, "model", "notFound"),
    ],
)
async def test_mistakes_are_answered_in_googles_envelope(
    client: AppClient, body: dict, location: str, reason: str
) -> None:
    response = await client.post(V2, json=body)
    status = 404 if reason == "notFound" else 400
    error = google_error(response, status)
    assert error["status"] == ("NOT_FOUND" if status == 404 else "INVALID_ARGUMENT")
    assert error["errors"][0]["reason"] == reason
    assert error["errors"][0]["location"] == location
    assert error["errors"][0]["locationType"] == "parameter"


async def test_an_unknown_path_and_a_bad_body(client: AppClient) -> None:
    error = google_error(await client.get(f"{V2}/glossaries"), 404)
    assert error["status"] == "NOT_FOUND"
    bad = await client.post(V2, content=b"{", headers={"content-type": "application/json"})
    assert google_error(bad, 400)["message"] == "The body is not valid JSON."
    listed = await client.post(V2, json=["Hi"])
    google_error(listed, 400)


async def test_keys_in_the_query_the_header_a_form_and_as_a_bearer_token(
    keyed: AppClient,
) -> None:
    body = {"q": "Good morning", "target": "de", "source": "en"}
    for request in (
        keyed.post(V2, params={"key": KEY}, json=body),
        keyed.post(V2, headers={"X-Goog-Api-Key": KEY}, json=body),
        keyed.post(V2, data={**body, "key": KEY}),
        keyed.get(V2, params={**body, "key": KEY}),
        keyed.post(V2, headers={"Authorization": f"Bearer {KEY}"}, json=body),
    ):
        assert translations(await request) == [{"translatedText": "GOOD MORNING"}]


async def test_wrong_and_missing_keys(keyed: AppClient) -> None:
    body = {"q": "Hi", "target": "de"}
    wrong = google_error(await keyed.post(V2, params={"key": "nope"}, json=body), 400)
    assert wrong["status"] == "INVALID_ARGUMENT"
    assert wrong["details"][0]["reason"] == "API_KEY_INVALID"
    assert wrong["errors"][0]["reason"] == "badRequest"
    header = await keyed.post(f"{V2}/detect", headers={"X-Goog-Api-Key": "nope"}, json=body)
    assert google_error(header, 400)["details"][0]["reason"] == "API_KEY_INVALID"
    missing = google_error(await keyed.get(f"{V2}/languages"), 403)
    assert missing["status"] == "PERMISSION_DENIED"
    assert missing["errors"][0]["reason"] == "forbidden"
    # A bearer token the gate refuses, before the route: in Google's shape too.
    bearer = await keyed.post(V2, headers={"Authorization": "Bearer nope"}, json=body)
    error = google_error(bearer, 401)
    assert error["status"] == "UNAUTHENTICATED"
    assert error["errors"][0]["location"] == "Authorization"


async def test_browsers_may_call_it_with_googles_key_header(keyed: AppClient) -> None:
    preflight = await keyed.options(
        V2,
        headers={
            "Origin": "https://example.org",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "x-goog-api-key",
        },
    )
    assert preflight.status_code == 204
    assert "X-Goog-Api-Key" in preflight.headers["access-control-allow-headers"]
    answered = await keyed.get(
        f"{V2}/languages", params={"key": KEY}, headers={"Origin": "https://example.org"}
    )
    assert answered.headers["access-control-allow-origin"] == "*"


async def test_overload_is_googles_unavailable_with_retry_after(make_app) -> None:
    slow = FakeEngine()
    slow.hang = True  # until the refusal is checked
    body = {"q": "Good morning", "target": "de", "source": "en"}
    async with running(make_app(slow, max_num_seqs=1, max_queued_requests=0)) as client:
        admitted = asyncio.create_task(client.post(V2, json=body))
        await eventually(lambda: len(slow.requests) == 1)
        refused = await client.post(V2, json=body)
        error = google_error(refused, 503)
        assert error["status"] == "UNAVAILABLE"
        assert error["details"][0]["reason"] == "OVERLOADED"
        assert int(refused.headers["retry-after"]) >= 1
        slow.hang = False
        assert (await admitted).status_code == 200


# -- v3 -------------------------------------------------------------------------------------


async def test_v3_translate_text_on_a_location_and_on_a_project(client: AppClient) -> None:
    body = {
        "contents": ["Good morning", "<b>See you</b>"],
        "targetLanguageCode": "de",
        "sourceLanguageCode": "en",
        "labels": {"team": "docs"},
    }
    located = await client.post(f"{V3}:translateText", json=body)
    on_project = await client.post("/v3/projects/my-project:translateText", json=body)
    expected = {
        "translations": [{"translatedText": "GOOD MORNING"}, {"translatedText": "<b>SEE YOU</b>"}]
    }
    assert located.json() == on_project.json() == expected
    detected = await client.post(
        f"{V3}:translateText",
        json={
            "contents": ["The meeting was moved."],
            "targetLanguageCode": "fr",
            "mimeType": "text/plain",
            "model": f"{V3[4:]}/models/general/nmt",
        },
    )
    [translation] = detected.json()["translations"]
    assert translation["detectedLanguageCode"] == "en"
    assert translation["model"].endswith("/models/general/nmt")


async def test_v3_detects_and_lists(client: AppClient) -> None:
    detected = await client.post(f"{V3}:detectLanguage", json={"content": "Guten Morgen, Welt!"})
    assert detected.json()["languages"][0]["languageCode"] == "de"
    listed = await client.get(f"{V3}/supportedLanguages", params={"displayLanguageCode": "fr"})
    assert {
        "languageCode": "de",
        "displayName": "allemand",
        "supportSource": True,
        "supportTarget": True,
    } in listed.json()["languages"]
    bare = await client.get("/v3/projects/my-project/supportedLanguages")
    assert "displayName" not in bare.json()["languages"][0]


async def test_v3_errors_in_its_envelope(client: AppClient) -> None:
    missing = await client.post(f"{V3}:translateText", json={"contents": ["Hi"]})
    assert missing.status_code == 400
    error = missing.json()["error"]
    assert set(error) == {"code", "message", "status", "details"}  # no v2 `errors`
    assert error["status"] == "INVALID_ARGUMENT"
    assert error["details"][0]["reason"] == "REQUIRED_PARAMETER"
    unknown = await client.post(f"{V3}:romanizeText", json={"contents": ["Hi"]})
    assert unknown.status_code == 501
    assert unknown.json()["error"]["status"] == "UNIMPLEMENTED"
    assert "`romanizeText`" in unknown.json()["error"]["message"]
    dataset = await client.get(f"{V3}/adaptiveMtDatasets/d")
    assert dataset.status_code == 501
    assert "`GetAdaptiveMtDataset`" in dataset.json()["error"]["message"]
    glossary = await client.post(
        f"{V3}:translateText",
        json={
            "contents": ["Hi"],
            "targetLanguageCode": "de",
            "glossaryConfig": {"glossary": f"{V3[4:]}/glossaries/g"},
        },
    )
    assert glossary.status_code == 404  # a stored glossary's id, and there is none
    assert glossary.json()["error"]["status"] == "NOT_FOUND"
    assert glossary.json()["error"]["details"][0]["reason"] == "GLOSSARY_NOT_FOUND"
    adaptive = await client.post(f"{V3}:adaptiveMtTranslate", json={"content": ["Hi"]})
    assert adaptive.status_code == 400
    assert adaptive.json()["error"]["details"][0]["reason"] == "REQUIRED_PARAMETER"


async def test_v3_lives_beside_deepls_v3(keyed: AppClient) -> None:
    """Under /v3, Google's `projects/` answer in Google's shape and DeepL's routes in
    DeepL's, the gate's refusals included."""
    google = await keyed.post(
        f"{V3}:translateText", headers={"Authorization": "Bearer nope"}, json={}
    )
    assert google.status_code == 401 and google.json()["error"]["status"] == "UNAUTHENTICATED"
    deepl = await keyed.get("/v3/style_rules", headers={"Authorization": "Bearer nope"})
    assert deepl.status_code == 403 and set(deepl.json()) == {"message"}
    unknown_deepl = await keyed.get(
        "/v3/nothing-here", headers={"Authorization": f"DeepL-Auth-Key {KEY}"}
    )
    assert unknown_deepl.status_code == 404 and set(unknown_deepl.json()) == {"message"}
    served = await keyed.post(
        f"{V3}:translateText",
        headers={"X-Goog-Api-Key": KEY},
        json={"contents": ["Good morning"], "targetLanguageCode": "de", "sourceLanguageCode": "en"},
    )
    assert served.json() == {"translations": [{"translatedText": "GOOD MORNING"}]}
