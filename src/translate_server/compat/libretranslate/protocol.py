"""LibreTranslate wire types: its `/translate`, `/detect` and `/languages`, and their
conversion to and from the plain translation API."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from translate_server.translation.protocol import (
    DetectedLanguage,
    DetectResponse,
    TranslateRequest,
    TranslateResponse,
)
from translate_server.wire import JsonArray, RequestStruct, ResponseStruct

# LibreTranslate's own codes for two variants, and ours (BCP-47).
_TO_OURS = {"zt": "zh-Hant", "pb": "pt-BR"}
_TO_LIBRE = {ours: libre for libre, ours in _TO_OURS.items()}


def ours(code: str) -> str:
    return _TO_OURS.get(code.lower(), code)


def libre_code(tag: str) -> str:
    return _TO_LIBRE.get(tag, tag)


# Languages LibreTranslate lists under its own codes, beside those the detector knows.
LIBRE_VARIANTS = (("pb", "Portuguese (Brazil)"), ("zt", "Chinese (traditional)"))


class LibreTranslateRequest(RequestStruct, kw_only=True):
    q: str | list[str]
    target: Annotated[str, Meta(min_length=2, max_length=35)]
    source: Annotated[str, Meta(min_length=2, max_length=35)] = "auto"
    format: Literal["text", "html"] = "text"
    # Checked by the router's hook when no Authorization header came.
    api_key: str | None = None
    # Further translations of each text (LibreTranslate allows up to 3).
    alternatives: Annotated[int, Meta(ge=0, le=3)] = 0

    def to_translate_request(self) -> TranslateRequest:
        return TranslateRequest(
            text=self.q,
            source_lang=ours(self.source),
            target_lang=ours(self.target),
            format=self.format,
            alternatives=self.alternatives,
        )


class LibreDetected(msgspec.Struct, kw_only=True):
    confidence: float  # percent, as LibreTranslate reports it
    language: str

    @classmethod
    def of(cls, detected: DetectedLanguage) -> LibreDetected:
        return cls(
            confidence=round(detected.confidence * 100, 2), language=libre_code(detected.language)
        )


class LibreTranslateResponse(ResponseStruct, kw_only=True):
    translatedText: str | list[str]
    detectedLanguage: LibreDetected | list[LibreDetected] | None = None
    # A text's alternatives, or a list of them per text of a batch (msgspec takes one array
    # type per union, hence the bare list).
    alternatives: JsonArray | None = None
    # Not LibreTranslate's: what the quality guard found wrong, as /translate gives it
    # (its clients ignore unknown fields).
    warnings: list[str | list[str]] | None = None

    @classmethod
    def of(cls, response: TranslateResponse) -> LibreTranslateResponse:
        if response.translations is not None:
            detected = (
                [LibreDetected.of(d) for d in response.detected_source_langs]
                if response.detected_source_langs
                else None
            )
            return cls(
                translatedText=response.translations,
                detectedLanguage=detected,
                alternatives=response.alternatives,
                warnings=response.warnings,
            )
        single = (
            LibreDetected.of(response.detected_source_lang)
            if response.detected_source_lang
            else None
        )
        alternatives = response.alternatives[0] if response.alternatives else None
        return cls(
            translatedText=response.translation or "",
            detectedLanguage=single,
            alternatives=alternatives,
            warnings=response.warnings,
        )


class LibreDetectRequest(RequestStruct, kw_only=True):
    q: Annotated[str, Meta(min_length=1)]
    api_key: str | None = None


def libre_detections(response: DetectResponse) -> list[LibreDetected]:
    return [LibreDetected.of(candidate) for candidate in response.candidates]


class LibreLanguage(msgspec.Struct, kw_only=True):
    code: str
    name: str
    targets: list[str]


class LibreSuggestRequest(RequestStruct, kw_only=True):
    """A suggested translation, in LibreTranslate's fields (each required; a missing one is
    its 400, with its message)."""

    q: Annotated[str, Meta(max_length=20_000, description="The original text.")] = ""
    s: Annotated[str, Meta(max_length=20_000, description="The suggested translation.")] = ""
    source: Annotated[str, Meta(max_length=35, description="The original's language.")] = ""
    target: Annotated[str, Meta(max_length=35, description="The suggestion's language.")] = ""
    api_key: str | None = None


class LibreSuggestResponse(msgspec.Struct, kw_only=True):
    success: bool


class LibreError(msgspec.Struct):
    error: str


class FrontendLanguage(msgspec.Struct, kw_only=True):
    code: str
    name: str


class FrontendLanguages(msgspec.Struct, kw_only=True):
    source: FrontendLanguage
    target: FrontendLanguage


class FrontendSettings(msgspec.Struct, kw_only=True):
    """What LibreTranslate's web page reads before it shows itself."""

    charLimit: int
    frontendTimeout: int
    apiKeys: bool
    keyRequired: bool
    suggestions: bool
    filesTranslation: bool
    supportedFilesFormat: list[str]
    language: FrontendLanguages
