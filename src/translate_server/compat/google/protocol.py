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


class TranslateParams(RequestStruct, kw_only=True):
    q: str | list[str] | None = None  # repeated: one translation per `q`, in order
    target: str | None = None
    source: str | None = None  # absent: detected, and answered as `detectedSourceLanguage`
    format: Literal["html", "text"] | None = None  # Google's default is html
    model: str | None = None  # `nmt` or `base`: the served model; else one of its adapters
    cid: str | list[str] | None = None  # AutoML customizations: none are served


class DetectParams(RequestStruct, kw_only=True):
    q: str | list[str] | None = None


class LanguagesParams(RequestStruct, kw_only=True):
    target: str | None = None  # the language of the names; absent: codes only
    model: str | None = None


# The form and query fields that are lists even when sent once.
REPEATED = ("q", "cid")


# -- v2 answers ----------------------------------------------------------------------------


class Translation(ResponseStruct, kw_only=True):
    translatedText: str
    # Only where `source` was not given.
    detectedSourceLanguage: str | None = None
    # Only where the request named one, as it named it.
    model: str | None = None
    # Not Google's: what the quality guard still found wrong (its clients ignore unknown
    # fields), as /translate's `warnings`.
    warnings: list[str] | None = None


class Translations(ResponseStruct, kw_only=True):
    translations: list[Translation]


class TranslateResponse(ResponseStruct, kw_only=True):
    data: Translations


class Detection(msgspec.Struct, kw_only=True):
    language: str  # `und` where the text's language cannot be told
    confidence: float  # 0..1
    isReliable: bool = False  # deprecated by Google, still sent


class Detections(ResponseStruct, kw_only=True):
    # One list per `q`, of one detection each.
    detections: list[list[Detection]]


class DetectResponse(ResponseStruct, kw_only=True):
    data: Detections


class Language(ResponseStruct, kw_only=True):
    language: str
    name: str | None = None  # in the `target` language, where one was asked


class Languages(ResponseStruct, kw_only=True):
    languages: list[Language]


class LanguagesResponse(ResponseStruct, kw_only=True):
    data: Languages


# -- v3 (advanced edition) -----------------------------------------------------------------


class TranslateTextRequest(RequestStruct, kw_only=True):
    contents: list[str] | None = None
    mimeType: str | None = None  # `text/html` (the default) or `text/plain`
    sourceLanguageCode: str | None = None
    targetLanguageCode: str | None = None
    # `projects/*/locations/*/models/general/nmt` and the like: the served model; a model id of
    # its own names one of its adapters.
    model: str | None = None
    glossaryConfig: JsonObject | None = None  # refused: no Google glossaries here
    transliterationConfig: JsonObject | None = None
    labels: dict[str, str] | None = None  # billing labels: nothing to bill


class TranslationV3(ResponseStruct, kw_only=True):
    translatedText: str
    model: str | None = None
    detectedLanguageCode: str | None = None
    warnings: list[str] | None = None  # not Google's, as in v2


class TranslateTextResponse(ResponseStruct, kw_only=True):
    translations: list[TranslationV3]


class DetectLanguageRequest(RequestStruct, kw_only=True):
    content: str | None = None
    mimeType: str | None = None
    model: str | None = None
    labels: dict[str, str] | None = None


class DetectedLanguage(msgspec.Struct, kw_only=True):
    languageCode: str
    confidence: float


class DetectLanguageResponse(ResponseStruct, kw_only=True):
    languages: list[DetectedLanguage]


class SupportedLanguage(ResponseStruct, kw_only=True):
    languageCode: str
    displayName: str | None = None  # in `displayLanguageCode`, where one was asked
    supportSource: bool
    supportTarget: bool


class SupportedLanguages(ResponseStruct, kw_only=True):
    languages: list[SupportedLanguage]


# -- errors --------------------------------------------------------------------------------


class ErrorItem(ResponseStruct, kw_only=True):
    """v2's legacy detail of an error; `location` names the offending parameter."""

    message: str
    domain: str
    reason: str
    location: str | None = None
    locationType: str | None = None


class ErrorInfo(msgspec.Struct, kw_only=True):
    """`google.rpc.ErrorInfo`: `reason` is what clients match (`API_KEY_INVALID`)."""

    type: str = msgspec.field(name="@type", default="type.googleapis.com/google.rpc.ErrorInfo")
    reason: str
    domain: str


class ErrorBody(ResponseStruct, kw_only=True):
    code: int
    message: str
    errors: list[ErrorItem] | None = None  # v2 only
    status: str
    details: list[ErrorInfo]


class GoogleError(msgspec.Struct):
    error: ErrorBody


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
    "target_lang": "targetLanguageCode",
    "source_lang": "sourceLanguageCode",
    "format": "mimeType",
    "model": "model",
}
Edition = Literal["v2", "v3"]
