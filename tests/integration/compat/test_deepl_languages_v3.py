"""DeepL's /v3/languages and /v3/languages/resources, in the shapes DeepL's OpenAPI (3.9)
documents, and the requests deepl-php 1.19 sends for them (`DeepLClient::
getLanguagesForResource` and `getLanguageResources`, src/DeepLClient.php), replayed and read
as its `LanguageSupport::fromJson` and `LanguageResource::fromJson` read them."""

from __future__ import annotations

import pytest

from tests.support.harness import running

# What deepl-php sends with every request (tests/RequestShapeTest.php's
# assertCommonRequestHeaders; src/Translator.php's user agent).
PHP_HEADERS = {
    "Authorization": "DeepL-Auth-Key secret",
    "User-Agent": "deepl-php/1.19.0 (Linux) php/8.3.0 curl/8.5.0",
}
LANGUAGE_FIELDS = {"lang", "name", "usable_as_source", "usable_as_target", "status", "features"}


async def test_deepl_php_reads_the_languages_of_every_resource(make_app) -> None:
    async with running(make_app(api_key=["secret"])) as client:
        # getLanguagesForResource(RESOURCE_TRANSLATE_TEXT, [INCLUDE_BETA, INCLUDE_EXTERNAL]):
        # `include` repeated, not bracket-indexed.
        answer = await client.get(
            "/v3/languages?resource=translate_text&include=beta&include=external",
            headers=PHP_HEADERS,
        )
        assert answer.status_code == 200
        languages = answer.json()
        by_code = {}
        for language in languages:
            assert set(language) >= LANGUAGE_FIELDS
            assert language["name"] and language["status"] == "stable"
            assert isinstance(language["usable_as_source"], bool)
            # `features` is a map of feature name to {status}.
            assert isinstance(language["features"], dict)
            assert all(feature["status"] for feature in language["features"].values())
            by_code[language["lang"]] = language
        # BCP-47 codes, the variants as targets only (its GeneralTest's regional variants).
        assert {"de", "en-US", "pt-BR", "en"} <= set(by_code)
        assert by_code["de"]["usable_as_source"] and by_code["de"]["usable_as_target"]
        assert by_code["en"]["usable_as_source"] and not by_code["en"]["usable_as_target"]
        assert not by_code["en-US"]["usable_as_source"] and by_code["en-US"]["usable_as_target"]
        # A target's features: formality only where it is a target.
        assert "formality" in by_code["de"]["features"]
        assert "formality" not in by_code["en"]["features"]
        assert "auto_detection" not in by_code["en-US"]["features"]
        assert {"glossary", "tag_handling"} <= set(by_code["en-US"]["features"])
        for resource in ("translate_document", "glossary", "write", "style_rules"):
            listed = await client.get(f"/v3/languages?resource={resource}", headers=PHP_HEADERS)
            assert listed.status_code == 200 and listed.json(), resource
            assert {language["lang"] for language in listed.json()} == set(by_code)


async def test_languages_are_the_same_as_v2s(client) -> None:
    """One source of truth: /v2/languages' sources and targets, as v3 codes."""
    v3 = (await client.get("/v3/languages", params={"resource": "translate_text"})).json()
    sources = (await client.get("/v2/languages", params={"type": "source"})).json()
    targets = (await client.get("/v2/languages", params={"type": "target"})).json()
    v3_sources = {entry["lang"].upper() for entry in v3 if entry["usable_as_source"]}
    assert v3_sources == {entry["language"] for entry in sources}
    v3_targets = {
        entry["lang"].upper(): entry.get("support") for entry in v3 if entry["usable_as_target"]
    }
    # The served model's measured support beside each target, as in v2.
    assert v3_targets == {entry["language"]: entry.get("support") for entry in targets}


async def test_deepl_php_reads_the_resources(client) -> None:
    # getLanguageResources(): GET /v3/languages/resources.
    answer = await client.get("/v3/languages/resources", headers=PHP_HEADERS)
    assert answer.status_code == 200
    by_name = {}
    for resource in answer.json():
        assert set(resource) == {"name", "features"}
        for feature in resource["features"]:
            assert set(feature) <= {"name", "needs_source_support", "needs_target_support"}
        by_name[resource["name"]] = {f["name"]: f for f in resource["features"]}
    glossary = by_name["translate_text"]["glossary"]
    assert glossary["needs_source_support"] and glossary["needs_target_support"]
    assert by_name["translate_text"]["formality"] == {
        "name": "formality",
        "needs_target_support": True,
    }
    assert by_name["translate_text"]["auto_detection"] == {
        "name": "auto_detection",
        "needs_source_support": True,
    }
    assert by_name["glossary"] == {} and by_name["style_rules"] == {}
    assert "voice" not in by_name


async def test_a_base_model_serves_no_write_and_no_style_rules(make_app, engine) -> None:
    async with running(make_app(engine.__class__(chat_template=False))) as client:
        names = [r["name"] for r in (await client.get("/v3/languages/resources")).json()]
        assert "write" not in names and "translate_text" in names
        write = await client.get("/v3/languages", params={"resource": "write"})
        assert write.status_code == 200 and write.json() == []
        text = (await client.get("/v3/languages", params={"resource": "translate_text"})).json()
        assert all("style_rules" not in language["features"] for language in text)


@pytest.mark.parametrize(
    "query",
    ["", "?resource=", "?resource=not_a_resource", "?resource=translate_text&include=alpha"],
)
async def test_bad_requests_are_deepls_400(client, query: str) -> None:
    # deepl-php turns a 400 into "Bad request, message: ..." (its GeneralTest's invalid resource).
    answer = await client.get(f"/v3/languages{query}")
    assert answer.status_code == 400 and set(answer.json()) == {"message"}


async def test_a_resource_not_served_lists_no_languages(client) -> None:
    voice = await client.get("/v3/languages", params={"resource": "voice"})
    assert voice.status_code == 200 and voice.json() == []
