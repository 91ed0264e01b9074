"""Google's official client library (`google-cloud-translate`) against this server, over a
real socket: the basic edition's `translate_v2.Client` and the advanced edition's
`TranslationServiceClient` with its REST transport, each pointed at the server with
`client_options={"api_endpoint": ...}`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest

from tests.support.fakes import FakeEngine
from tests.support.harness import served

translate_v2 = pytest.importorskip(
    "google.cloud.translate_v2",
    reason="google-cloud-translate (the `test` extra) is not installed",
)
translate_v3 = pytest.importorskip("google.cloud.translate_v3")
api_key = pytest.importorskip("google.auth.api_key")
exceptions = pytest.importorskip("google.api_core.exceptions")
credentials = pytest.importorskip("google.auth.credentials")

KEY = "google-key"
MEMORY_CSV = (
    b"en,de\n"
    b"Save the file.,Speichern Sie die Datei.\n"
    b"Open the settings window.,\xc3\x96ffnen Sie das Einstellungsfenster.\n"
    b"The printer is out of paper.,Der Drucker hat kein Papier mehr.\n"
)


@pytest.fixture
async def server_url(make_app) -> AsyncIterator[str]:
    async with served(make_app(api_key=[KEY])) as url:
        yield url


def v2_client(url: str, key: str | None = KEY):
    chosen = credentials.AnonymousCredentials() if key is None else api_key.Credentials(key)
    return translate_v2.Client(credentials=chosen, client_options={"api_endpoint": url})


async def _call(function, *args, **kwargs):
    return await asyncio.to_thread(function, *args, **kwargs)


async def test_translates_one_text_and_a_list(server_url: str, engine: FakeEngine) -> None:
    client = v2_client(server_url)
    one = await _call(client.translate, "Good morning", target_language="de")
    assert one == {
        "translatedText": "GOOD MORNING",
        "detectedSourceLanguage": "en",
        "input": "Good morning",
    }
    assert "to German" in engine.decode(engine.requests[0][1])
    texts = ["Good morning", "See you tomorrow"]
    several = await _call(
        client.translate, texts, target_language="zh-CN", source_language="en", model="nmt"
    )
    assert several == [
        {"translatedText": "GOOD MORNING", "model": "nmt", "input": "Good morning"},
        {"translatedText": "SEE YOU TOMORROW", "model": "nmt", "input": "See you tomorrow"},
    ]
    assert "Chinese (Simplified)" in engine.decode(engine.requests[-1][1])


async def test_html_by_default_and_plain_text_when_asked(server_url: str) -> None:
    client = v2_client(server_url)
    html = await _call(
        client.translate, '<p class="x">Hello <b>world</b></p>', target_language="fr"
    )
    assert html["translatedText"] == '<p class="x">HELLO <b>WORLD</b></p>'
    text = await _call(client.translate, "<b>Hello world</b>", target_language="fr", format_="text")
    assert text["translatedText"] == "<B>HELLO WORLD</B>"


async def test_detects_languages(server_url: str) -> None:
    client = v2_client(server_url)
    one = await _call(client.detect_language, "Die Besprechung wurde verschoben.")
    assert one["language"] == "de" and 0.5 < one["confidence"] <= 1
    assert one["input"] == "Die Besprechung wurde verschoben."
    several = await _call(client.detect_language, ["La réunion a été reportée à jeudi.", "12 345"])
    assert [found["language"] for found in several] == ["fr", "und"]


async def test_lists_languages_named_in_the_target(server_url: str) -> None:
    client = v2_client(server_url)
    languages = await _call(client.get_languages, target_language="de")
    by_code = {language["language"]: language["name"] for language in languages}
    assert by_code["en"] == "Englisch"
    assert by_code["iw"] == "Hebräisch"
    assert by_code["zh-CN"] == "Chinesisch (Vereinfacht)"


async def test_a_wrong_key_and_no_key_are_refused_as_google_refuses_them(
    server_url: str,
) -> None:
    with pytest.raises(exceptions.BadRequest) as wrong:
        await _call(v2_client(server_url, "not-the-key").translate, "Hi", target_language="de")
    assert wrong.value.reason == "API_KEY_INVALID"
    assert wrong.value.errors[0]["reason"] == "badRequest"
    with pytest.raises(exceptions.Forbidden) as missing:
        await _call(v2_client(server_url, None).get_languages)
    assert missing.value.reason == "API_KEY_MISSING"


async def test_a_refused_request_raises_with_googles_details(server_url: str) -> None:
    with pytest.raises(exceptions.BadRequest) as caught:
        await _call(v2_client(server_url).translate, "Hi", target_language="xx")
    assert caught.value.errors[0]["location"] == "target"
    assert caught.value.reason == "UNSUPPORTED_LANGUAGE"


def v3_client(url: str):
    return translate_v3.TranslationServiceClient(
        transport="rest",
        client_options={"api_endpoint": url, "api_key": KEY},
    )


async def test_the_advanced_edition_translates_detects_and_lists(server_url: str) -> None:
    client = v3_client(server_url)
    parent = "projects/my-project/locations/global"
    answer = await _call(
        client.translate_text,
        parent=parent,
        contents=["Good morning", "<b>See you</b>"],
        target_language_code="iw",
        source_language_code="en",
        mime_type="text/html",
    )
    assert [t.translated_text for t in answer.translations] == ["GOOD MORNING", "<b>SEE YOU</b>"]
    on_project = await _call(
        client.translate_text,
        parent="projects/my-project",
        contents=["The meeting was moved to Thursday."],
        target_language_code="de",
        mime_type="text/plain",
    )
    assert on_project.translations[0].detected_language_code == "en"
    detected = await _call(
        client.detect_language, parent=parent, content="La réunion a été reportée à jeudi."
    )
    assert detected.languages[0].language_code == "fr"
    listed = await _call(client.get_supported_languages, parent=parent, display_language_code="de")
    german = next(language for language in listed.languages if language.language_code == "de")
    assert (german.display_name, german.support_source, german.support_target) == (
        "Deutsch",
        True,
        True,
    )
    with pytest.raises(exceptions.BadRequest) as caught:
        await _call(
            client.translate_text, parent=parent, contents=["Hi"], target_language_code="xx"
        )
    assert caught.value.reason == "UNSUPPORTED_LANGUAGE"


AUTH = {"authorization": f"Bearer {KEY}"}
PARENT = "projects/my-project/locations/global"


async def test_translate_text_with_a_stored_glossary_answers_both_translations(
    server_url: str, engine: FakeEngine
) -> None:
    async with httpx.AsyncClient(base_url=server_url, headers=AUTH) as http:
        made = await http.post(
            "/glossaries",
            json={
                "name": "pets",
                "source_lang": "en",
                "target_lang": "de",
                "entries": {"cat": "Mieze"},
            },
        )
        assert made.status_code == 201, made.text
    name = f"{PARENT}/glossaries/{made.json()['id']}"
    config = translate_v3.TranslateTextGlossaryConfig(glossary=name, ignore_case=True)
    answer = await _call(
        v3_client(server_url).translate_text,
        request={
            "parent": PARENT,
            "contents": ["The cat sleeps.", "Good night"],
            "source_language_code": "en",
            "target_language_code": "de",
            "mime_type": "text/plain",
            "glossary_config": config,
        },
    )
    assert [t.translated_text for t in answer.translations] == ["THE CAT SLEEPS.", "GOOD NIGHT"]
    assert [t.translated_text for t in answer.glossary_translations] == [
        "THE CAT SLEEPS.",
        "GOOD NIGHT",
    ]
    assert answer.glossary_translations[0].glossary_config.glossary == name
    assert answer.glossary_translations[0].glossary_config.ignore_case is True
    prompts = [engine.decode(request[1]) for request in engine.requests]
    # The glossary's term steers only the glossary's translation of the text holding it.
    assert sum("Mieze" in prompt for prompt in prompts) == 1
    assert sum("The cat sleeps." in prompt for prompt in prompts) == 2
    with pytest.raises(exceptions.NotFound):
        await _call(
            v3_client(server_url).translate_text,
            request={
                "parent": PARENT,
                "contents": ["Hi"],
                "target_language_code": "de",
                "glossary_config": {"glossary": f"{PARENT}/glossaries/unknown"},
            },
        )


async def test_adaptive_mt_translates_with_a_memorys_closest_entries(
    server_url: str, engine: FakeEngine
) -> None:
    async with httpx.AsyncClient(base_url=server_url, headers=AUTH) as http:
        memory = (await http.post("/memories", json={"name": "ui"})).json()["id"]
        imported = await http.post(
            f"/memories/{memory}/import",
            files={"file": ("ui.csv", MEMORY_CSV)},
        )
        assert imported.status_code == 200, imported.text
    client = v3_client(server_url)
    answer = await _call(
        client.adaptive_mt_translate,
        request={
            "parent": PARENT,
            "dataset": f"{PARENT}/adaptiveMtDatasets/{memory}",
            "content": ["Open the settings windows.", "Save the file."],
        },
    )
    assert answer.language_code == "de"
    # The exact match comes from the memory; the close one is translated with examples.
    assert answer.translations[1].translated_text == "Speichern Sie die Datei."
    assert answer.translations[0].translated_text.startswith("OPEN THE SETTINGS WINDOW")
    prompt = engine.decode(engine.requests[-1][1])
    assert "Öffnen Sie das Einstellungsfenster." in prompt
    inline = await _call(
        client.adaptive_mt_translate,
        request={
            "parent": PARENT,
            "content": ["Good night"],
            "reference_sentence_config": {
                "source_language_code": "en",
                "target_language_code": "fr",
                "reference_sentence_pair_lists": [
                    {
                        "reference_sentence_pairs": [
                            {"source_sentence": "Good morning", "target_sentence": "Bonjour"}
                        ]
                    }
                ],
            },
        },
    )
    assert inline.language_code == "fr" and inline.translations[0].translated_text
    assert "Bonjour" in engine.decode(engine.requests[-1][1])


async def test_a_method_not_served_is_refused_by_name(server_url: str) -> None:
    with pytest.raises(exceptions.MethodNotImplemented) as listed:
        await _call(v3_client(server_url).list_glossaries, parent=PARENT)
    assert "`ListGlossaries`" in listed.value.message
    with pytest.raises(exceptions.MethodNotImplemented) as romanized:
        await _call(v3_client(server_url).romanize_text, parent=PARENT, contents=["Привет"])
    assert "`romanizeText`" in romanized.value.message
