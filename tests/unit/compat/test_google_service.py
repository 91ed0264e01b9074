"""Google Cloud Translation's service, without HTTP: its language codes both ways, its
parameters checked, a batch's blank and undetectable texts answered as they are, and the
errors naming the parameter as the client named it."""

from __future__ import annotations

import msgspec
import pytest

from translate_server.compat.google.codes import google_code, google_languages, language_names, ours
from translate_server.compat.google.protocol import (
    GoogleDetectParams,
    GoogleGlossaryConfig,
    GoogleLanguagesParams,
    GoogleTranslateParams,
    GoogleV3DetectRequest,
    GoogleV3TranslateRequest,
)
from translate_server.compat.google.service import GoogleTranslator
from translate_server.errors import ApiError
from translate_server.inference.admission import Admission
from translate_server.inference.generation import GenerationService
from translate_server.observability.metrics import ServiceMetrics
from translate_server.observability.record import RequestRecord
from translate_server.settings import LimitSettings
from translate_server.translation.service.translation_service import TranslationService

from tests.support.fakes import FakeEngine

LONG = 40


@pytest.fixture
def engine() -> FakeEngine:
    return FakeEngine()


@pytest.fixture
def google(engine: FakeEngine) -> GoogleTranslator:
    translation = TranslationService(
        GenerationService(engine),
        Admission(slots=4, queue_limit=16, metrics=ServiceMetrics()),
        LimitSettings(max_text_chars=LONG, max_texts=4),
        "fake-model",
        quality_guard=False,
    )
    return GoogleTranslator(translation)


async def translate(google: GoogleTranslator, **params: object) -> list[dict]:
    answer = await google.translate_v2(
        msgspec.convert(params, GoogleTranslateParams),
        RequestRecord("r", "/language/translate/v2", "POST"),
        deadline=1e12,
    )
    return [msgspec.to_builtins(translation) for translation in answer.data.translations]


@pytest.mark.parametrize(
    ("google_code_", "tag"),
    [("zh-CN", "zh-Hans"), ("zh-TW", "zh-Hant"), ("iw", "he"), ("jw", "jv"), ("tl", "fil")],
)
def test_google_codes_map_to_the_services_tags_and_back(google_code_: str, tag: str) -> None:
    assert ours(google_code_) == tag
    assert google_code(tag) == google_code_


def test_other_codes_pass_as_they_are_and_norwegian_is_googles_no() -> None:
    assert ours("pt-PT") == "pt-PT" and google_code("pt-PT") == "pt-PT"
    assert google_code("nb") == "no"
    assert google_code("zh") == "zh-CN"  # the detector finds Chinese without its script


def test_the_language_list_is_in_googles_codes_with_localized_names() -> None:
    codes = google_languages()
    assert {"iw", "zh-CN", "zh-TW", "en", "de"} <= set(codes)
    assert not {"he", "zh", "nb"} & set(codes)
    names = language_names("de", "target")
    assert names["en"] == "Englisch"
    assert names["zh-TW"] == "Chinesisch (Traditionell)"
    assert language_names("iw", "target")["de"] == "גרמנית"
    with pytest.raises(ApiError) as caught:
        language_names("xx", "target")
    assert (caught.value.status_code, caught.value.param) == (400, "target")


async def test_html_is_googles_default_format(google: GoogleTranslator) -> None:
    html = await translate(google, q=["<b>Hi</b> you"], target="de", source="en")
    text = await translate(google, q=["<b>Hi</b> you"], target="de", source="en", format="text")
    assert html == [{"translatedText": "<b>HI</b> YOU"}]
    assert text == [{"translatedText": "<B>HI</B> YOU"}]


async def test_blank_and_letterless_texts_come_back_as_they_are(
    google: GoogleTranslator, engine: FakeEngine
) -> None:
    found = await translate(google, q=["Good morning", " ", "42 %", "Das ist gut."], target="fr")
    assert found == [
        {"translatedText": "GOOD MORNING", "detectedSourceLanguage": "en"},
        {"translatedText": " ", "detectedSourceLanguage": "und"},
        {"translatedText": "42 %", "detectedSourceLanguage": "und"},
        {"translatedText": "DAS IST GUT.", "detectedSourceLanguage": "de"},
    ]
    assert len(engine.requests) == 2


async def test_a_text_the_detector_cannot_place_is_kept_and_the_rest_translated(
    google: GoogleTranslator,
) -> None:
    # Letters, but none the detector can tell a language by.
    found = await translate(google, q=["ꙮ", "Good morning"], target="de")
    assert found == [
        {"translatedText": "ꙮ", "detectedSourceLanguage": "und"},
        {"translatedText": "GOOD MORNING", "detectedSourceLanguage": "en"},
    ]


async def test_many_texts_the_detector_cannot_place_cost_one_more_round(
    google: GoogleTranslator, monkeypatch: pytest.MonkeyPatch
) -> None:
    rounds = []
    translate_batch = google.translation.translate

    async def counted(request, *args, **kwargs):
        rounds.append(list(request.text))
        return await translate_batch(request, *args, **kwargs)

    monkeypatch.setattr(google.translation, "translate", counted)
    texts = ["ꙮ", "Good morning", "ꙮ ꙮ", "ꙮꙮ"]
    found = await translate(google, q=texts, target="de")
    assert [t["translatedText"] for t in found] == ["ꙮ", "GOOD MORNING", "ꙮ ꙮ", "ꙮꙮ"]
    assert rounds == [texts, ["Good morning"]]


async def test_the_model_is_echoed_only_where_asked(
    google: GoogleTranslator, engine: FakeEngine
) -> None:
    asked = await translate(google, q="Hello", target="de", source="en", model="nmt")
    assert asked == [{"translatedText": "HELLO", "model": "nmt"}]
    assert "model" not in (await translate(google, q="Hello", target="de", source="en"))[0]
    with pytest.raises(ApiError) as caught:
        await translate(google, q="Hello", target="de", model="someone-elses")
    assert (caught.value.status_code, caught.value.param) == (404, "model")


async def test_the_targets_google_code_reaches_the_prompt_as_the_language(
    google: GoogleTranslator, engine: FakeEngine
) -> None:
    await translate(google, q="Hello", target="zh-TW", source="en")
    await translate(google, q="Hello", target="iw", source="en")
    prompts = [engine.decode(prompt) for _, prompt, _ in engine.requests]
    assert "Chinese (Traditional)" in prompts[0]
    assert "Hebrew" in prompts[1]


@pytest.mark.parametrize(
    ("params", "param", "code"),
    [
        ({"target": "de"}, "q", "required_parameter"),
        ({"q": []}, "q", "required_parameter"),
        ({"q": "Hi"}, "target", "required_parameter"),
        ({"q": "Hi", "target": "xx"}, "target", "unsupported_language"),
        ({"q": "Hi", "target": "de", "source": "qq"}, "source", "unsupported_language"),
        ({"q": ["Hi"] * 5, "target": "de"}, "q", None),
        ({"q": "Hi", "target": "de", "cid": ["mine"]}, "cid", None),
        # Numbered as the client sent them, blank texts included.
        ({"q": ["", "Hi", "x" * (LONG + 1)], "target": "de"}, "q[2]", "string_above_max_length"),
    ],
)
async def test_refusals_name_googles_parameter(
    google: GoogleTranslator, params: dict, param: str, code: str | None
) -> None:
    with pytest.raises(ApiError) as caught:
        await translate(google, **params)
    assert caught.value.status_code == 400
    assert caught.value.param == param
    if code is not None:
        assert caught.value.code == code


async def test_detection_gives_one_candidate_per_text_in_googles_codes(
    google: GoogleTranslator,
) -> None:
    found = await google.detect_v2(
        GoogleDetectParams(q=["Die Besprechung wurde verschoben.", "12 345", ""])
    )
    languages = [[(d.language, d.isReliable) for d in each] for each in found.data.detections]
    assert languages == [[("de", False)], [("und", False)], [("und", False)]]
    assert 0.5 < found.data.detections[0][0].confidence <= 1
    with pytest.raises(ApiError) as caught:
        await google.detect_v2(GoogleDetectParams(q=["Hi", "x" * (LONG + 1)]))
    assert caught.value.param == "q[1]"


def test_languages_are_named_only_where_a_target_is_given(google: GoogleTranslator) -> None:
    bare = google.languages_v2(GoogleLanguagesParams()).data.languages
    named = google.languages_v2(GoogleLanguagesParams(target="fr")).data.languages
    assert all(language.name is None for language in bare)
    assert {"language": "de", "name": "allemand"} in [
        {"language": language.language, "name": language.name} for language in named
    ]


async def test_v3_takes_its_mime_types_and_model_names(
    google: GoogleTranslator, engine: FakeEngine
) -> None:
    record = RequestRecord("r", "/v3/projects/p", "POST")
    model = "projects/p/locations/global/models/general/nmt"
    answer = await google.translate_v3(
        GoogleV3TranslateRequest(
            contents=["<b>Good morning</b>"],
            targetLanguageCode="de",
            mimeType="text/plain",
            model=model,
        ),
        record,
        1e12,
    )
    [translation] = answer.translations
    assert translation.translatedText == "<B>GOOD MORNING</B>"
    assert translation.model == model
    assert translation.detectedLanguageCode == "en"
    for body, param in [
        (GoogleV3TranslateRequest(contents=["Hi"]), "targetLanguageCode"),
        (GoogleV3TranslateRequest(targetLanguageCode="de"), "contents"),
        (
            GoogleV3TranslateRequest(contents=["Hi"], targetLanguageCode="de", mimeType="pdf"),
            "mimeType",
        ),
        (
            GoogleV3TranslateRequest(
                contents=["Hi"],
                targetLanguageCode="de",
                # Not a glossary's resource name.
                glossaryConfig=GoogleGlossaryConfig(glossary="projects/p/locations/l/models/m"),
            ),
            "glossaryConfig.glossary",
        ),
        (
            GoogleV3TranslateRequest(contents=["Hi", "x" * (LONG + 1)], targetLanguageCode="de"),
            "contents[1]",
        ),
    ]:
        with pytest.raises(ApiError) as caught:
            await google.translate_v3(body, record, 1e12)
        assert (caught.value.status_code, caught.value.param) == (400, param)


def test_v3_detects_and_lists(google: GoogleTranslator) -> None:
    [found] = google.detect_v3(GoogleV3DetectRequest(content="Bonjour tout le monde")).languages
    assert found.languageCode == "fr"
    listed = google.languages_v3("de").languages
    hebrew = next(language for language in listed if language.languageCode == "iw")
    assert (hebrew.displayName, hebrew.supportSource, hebrew.supportTarget) == (
        "Hebräisch",
        True,
        True,
    )
