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
from translate_server.wire import RequestStruct, ResponseStruct


class LibreTranslateRequest(RequestStruct, kw_only=True):
    q: str | list[str]
    target: Annotated[str, Meta(min_length=2, max_length=35)]
    source: Annotated[str, Meta(min_length=2, max_length=35)] = "auto"
    format: Literal["text", "html"] = "text"
    api_key: str | None = None
    # Accepted and ignored: alternatives.

    def to_translate_request(self) -> TranslateRequest:
        return TranslateRequest(text=self.q, source_lang=self.source, target_lang=self.target,
                                format=self.format)


class LibreDetected(msgspec.Struct, kw_only=True):
    confidence: float  # percent, as LibreTranslate reports it
    language: str

    @classmethod
    def of(cls, detected: DetectedLanguage) -> LibreDetected:
        return cls(confidence=round(detected.confidence * 100, 2), language=detected.language)


class LibreTranslateResponse(ResponseStruct, kw_only=True):
    translatedText: str | list[str]
    detectedLanguage: LibreDetected | list[LibreDetected] | None = None
    # Not LibreTranslate's: what the quality guard found wrong, as /translate gives it
    # (its clients ignore unknown fields).
    warnings: list[str | list[str]] | None = None

    @classmethod
    def of(cls, response: TranslateResponse) -> LibreTranslateResponse:
        if response.translations is not None:
            detected = ([LibreDetected.of(d) for d in response.detected_source_langs]
                        if response.detected_source_langs else None)
            return cls(translatedText=response.translations, detectedLanguage=detected,
                       warnings=response.warnings)
        single = (LibreDetected.of(response.detected_source_lang)
                  if response.detected_source_lang else None)
        return cls(translatedText=response.translation or "", detectedLanguage=single,
                   warnings=response.warnings)


class LibreDetectRequest(RequestStruct, kw_only=True):
    q: Annotated[str, Meta(min_length=1)]
    api_key: str | None = None


def libre_detections(response: DetectResponse) -> list[LibreDetected]:
    return [LibreDetected.of(candidate) for candidate in response.candidates]


class LibreLanguage(msgspec.Struct, kw_only=True):
    code: str
    name: str
    targets: list[str]


class LibreError(msgspec.Struct):
    error: str
