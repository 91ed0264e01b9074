"""Google Cloud Translation's wire types, as its clients send and read them: the basic
edition's (v2: `/language/translate/v2`, every answer inside `data`) and the advanced
edition's text methods (v3: `projects/*/locations/*:translateText` and its siblings), with the
error envelope both share.

Field names are Google's own (camelCase); parameters arrive in the query, a form or a JSON
body alike, so every one is optional here and the service says which are required."""

from __future__ import annotations

from typing import Literal

import msgspec

from translate_server.wire import JsonObject, RequestStruct, ResponseStruct

# -- v2 requests ---------------------------------------------------------------------------


class GoogleTranslateParams(RequestStruct, kw_only=True):
    q: str | list[str] | None = None  # repeated: one translation per `q`, in order
    target: str | None = None
    source: str | None = None  # absent: detected, and answered as `detectedSourceLanguage`
    format: Literal["html", "text"] | None = None  # Google's default is html
    model: str | None = None  # `nmt` or `base`: the served model; else one of its adapters
    cid: str | list[str] | None = None  # AutoML customizations: none are served


class GoogleDetectParams(RequestStruct, kw_only=True):
    q: str | list[str] | None = None


class GoogleLanguagesParams(RequestStruct, kw_only=True):
    target: str | None = None  # the language of the names; absent: codes only
    model: str | None = None


# The form and query fields that are lists even when sent once.
REPEATED = ("q", "cid")


# -- v2 answers ----------------------------------------------------------------------------


class GoogleTranslation(ResponseStruct, kw_only=True):
    translatedText: str
    # Only where `source` was not given.
    detectedSourceLanguage: str | None = None
    # Only where the request named one, as it named it.
    model: str | None = None
    # Not Google's: what the quality guard still found wrong (its clients ignore unknown
    # fields), as /translate's `warnings`.
    warnings: list[str] | None = None


class GoogleTranslations(ResponseStruct, kw_only=True):
    translations: list[GoogleTranslation]


class GoogleTranslateResponse(ResponseStruct, kw_only=True):
    data: GoogleTranslations


class GoogleDetection(msgspec.Struct, kw_only=True):
    language: str  # `und` where the text's language cannot be told
    confidence: float  # 0..1
    isReliable: bool = False  # deprecated by Google, still sent


class GoogleDetections(ResponseStruct, kw_only=True):
    # One list per `q`, of one detection each.
    detections: list[list[GoogleDetection]]


class GoogleDetectResponse(ResponseStruct, kw_only=True):
    data: GoogleDetections


class GoogleLanguage(ResponseStruct, kw_only=True):
    language: str
    name: str | None = None  # in the `target` language, where one was asked


class GoogleLanguages(ResponseStruct, kw_only=True):
    languages: list[GoogleLanguage]


class GoogleLanguagesResponse(ResponseStruct, kw_only=True):
    data: GoogleLanguages


# -- v3 (advanced edition) -----------------------------------------------------------------


class GoogleGlossaryConfig(RequestStruct, kw_only=True):
    """`TranslateTextGlossaryConfig`: `glossary` is `projects/*/locations/*/glossaries/ID`,
    ID a glossary stored here (GET /glossaries). Echoed in each `glossaryTranslations` item."""

    glossary: str | None = None
    ignoreCase: bool = False
    contextualTranslationEnabled: bool = False


class GoogleV3TranslateRequest(RequestStruct, kw_only=True):
    contents: list[str] | None = None
    mimeType: str | None = None  # `text/html` (the default) or `text/plain`
    sourceLanguageCode: str | None = None
    targetLanguageCode: str | None = None
    # `projects/*/locations/*/models/general/nmt` and the like: the served model; a model id of
    # its own names one of its adapters.
    model: str | None = None
    glossaryConfig: GoogleGlossaryConfig | None = None  # a stored glossary of this server's
    transliterationConfig: JsonObject | None = None
    labels: dict[str, str] | None = None  # billing labels: nothing to bill


class GoogleV3Translation(ResponseStruct, kw_only=True):
    translatedText: str
    model: str | None = None
    detectedLanguageCode: str | None = None
    glossaryConfig: GoogleGlossaryConfig | None = None  # in `glossaryTranslations` only
    warnings: list[str] | None = None  # not Google's, as in v2


class GoogleV3TranslateResponse(ResponseStruct, kw_only=True):
    translations: list[GoogleV3Translation]  # without the glossary, as Google answers
    glossaryTranslations: list[GoogleV3Translation] | None = None  # with `glossaryConfig`


class ReferenceSentencePair(RequestStruct, kw_only=True):
    sourceSentence: str = ""
    targetSentence: str = ""


class ReferenceSentencePairList(RequestStruct, kw_only=True):
    referenceSentencePairs: list[ReferenceSentencePair] = msgspec.field(default_factory=list)


class ReferenceSentenceConfig(RequestStruct, kw_only=True):
    """Example pairs given in the request: one list per `content`, at its index."""

    referenceSentencePairLists: list[ReferenceSentencePairList] = msgspec.field(
        default_factory=list
    )
    sourceLanguageCode: str | None = None
    targetLanguageCode: str | None = None


class GoogleAdaptiveMtRequest(RequestStruct, kw_only=True):
    """`AdaptiveMtTranslateRequest`: `dataset` is
    `projects/*/locations/*/adaptiveMtDatasets/ID`, ID a translation memory (POST /memories)
    whose closest entries guide each text as examples."""

    dataset: str | None = None
    content: list[str] | None = None
    mimeType: str | None = None
    referenceSentenceConfig: ReferenceSentenceConfig | None = None
    glossaryConfig: GoogleGlossaryConfig | None = None


class GoogleAdaptiveMtTranslation(ResponseStruct, kw_only=True):
    translatedText: str
    warnings: list[str] | None = None  # not Google's, as in v2


class GoogleAdaptiveMtResponse(ResponseStruct, kw_only=True):
    translations: list[GoogleAdaptiveMtTranslation]
    languageCode: str  # the target language
    glossaryTranslations: list[GoogleAdaptiveMtTranslation] | None = None


class GoogleV3DetectRequest(RequestStruct, kw_only=True):
    content: str | None = None
    mimeType: str | None = None
    model: str | None = None
    labels: dict[str, str] | None = None


class GoogleV3DetectedLanguage(msgspec.Struct, kw_only=True):
    languageCode: str
    confidence: float


class GoogleV3DetectResponse(ResponseStruct, kw_only=True):
    languages: list[GoogleV3DetectedLanguage]


class GoogleV3Language(ResponseStruct, kw_only=True):
    languageCode: str
    displayName: str | None = None  # in `displayLanguageCode`, where one was asked
    supportSource: bool
    supportTarget: bool


class GoogleV3Languages(ResponseStruct, kw_only=True):
    languages: list[GoogleV3Language]


# -- errors --------------------------------------------------------------------------------


class GoogleErrorItem(ResponseStruct, kw_only=True):
    """v2's legacy detail of an error; `location` names the offending parameter."""

    message: str
    domain: str
    reason: str
    location: str | None = None
    locationType: str | None = None


class GoogleErrorInfo(msgspec.Struct, kw_only=True):
    """`google.rpc.ErrorInfo`: `reason` is what clients match (`API_KEY_INVALID`)."""

    type: str = msgspec.field(name="@type", default="type.googleapis.com/google.rpc.ErrorInfo")
    reason: str
    domain: str


class GoogleErrorBody(ResponseStruct, kw_only=True):
    code: int
    message: str
    errors: list[GoogleErrorItem] | None = None  # v2 only
    status: str
    details: list[GoogleErrorInfo]


class GoogleError(msgspec.Struct):
    error: GoogleErrorBody


# What the offending request parameter is called on each API, by the service's name for it.
PARAMS_V2 = {
    "text": "q",
    "target_lang": "target",
    "source_lang": "source",
    "format": "format",
    "model": "model",
}
PARAMS_V3 = {
    "text": "contents",
    "glossary_id": "glossaryConfig.glossary",
    "memory": "dataset",
    "target_lang": "targetLanguageCode",
    "source_lang": "sourceLanguageCode",
    "format": "mimeType",
    "model": "model",
}
Edition = Literal["v2", "v3"]
