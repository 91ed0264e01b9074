"""DeepLX's wire types, as its server (OwO-Network/DeepLX, `service/service.go` and
`translate/types.go`) reads and answers them, and their conversion to and from the plain
translation API.

Its clients send one text with DeepL's language codes (`EN`, `ZH`, `ZH-HANS`, `EN-US`, `auto`
or nothing for detection) and read `data`; an error is `{code, message}` with the HTTP status
as `code`.
"""

from __future__ import annotations

import secrets
from typing import Literal

import msgspec

from translate_server.errors import ApiError, InvalidRequestError
from translate_server.translation.protocol import TranslateRequest, TranslateResponse
from translate_server.wire import RequestStruct


class NoTextError(ApiError):
    """DeepLX answers a request without text with a 404 of its own."""

    status_code = 404
    code = "no_text"


class DeepLXRequest(RequestStruct, kw_only=True):
    # Left optional so that their absence gets DeepLX's own answers, not a decoding error.
    text: str = ""
    target_lang: str = ""
    source_lang: str = ""
    tag_handling: str = ""

    def to_translate_request(self) -> TranslateRequest:
        if not self.text:
            raise NoTextError("No text to translate")
        if self.tag_handling not in ("", "html", "xml"):
            raise InvalidRequestError(
                "Invalid tag_handling value. Allowed values are 'html' and 'xml'.",
                param="tag_handling",
            )
        if not self.target_lang:
            raise InvalidRequestError("target_lang is required.", param="target_lang")
        source = self.source_lang.strip()
        return TranslateRequest(
            text=self.text,
            source_lang="auto" if source.lower() in ("", "auto") else source,
            target_lang=self.target_lang,
            format=self.tag_handling or "text",  # type: ignore[arg-type]
        )


class DeepLXResponse(msgspec.Struct, kw_only=True):
    code: int
    id: int
    data: str
    # DeepLX's are DeepL's further translations; this server gives none (an empty list, which
    # its clients iterate as safely as DeepLX's `null`).
    alternatives: list[str]
    source_lang: str
    target_lang: str
    method: Literal["Free", "Pro"]

    @classmethod
    def of(
        cls, request: DeepLXRequest, response: TranslateResponse, method: Literal["Free", "Pro"]
    ) -> DeepLXResponse:
        return cls(
            code=200,
            id=request_id(),
            data=response.translation or "",
            alternatives=[],
            source_lang=deeplx_code(response.source_lang),
            target_lang=request.target_lang,
            method=method,
        )


class DeepLXOfficialRequest(RequestStruct, kw_only=True):
    """DeepLX's `/v2/translate`, in DeepL's own format: texts, translated as one (joined by
    newlines), from a detected language."""

    text: list[str] = msgspec.field(default_factory=list)
    target_lang: str = ""

    def to_translate_request(self) -> TranslateRequest:
        if not self.text or not self.target_lang:
            raise InvalidRequestError("Invalid request payload")
        return TranslateRequest(text="\n".join(self.text), target_lang=self.target_lang)


class DeepLXTranslation(msgspec.Struct, kw_only=True):
    detected_source_language: str
    text: str


class DeepLXOfficialResponse(msgspec.Struct, kw_only=True):
    translations: list[DeepLXTranslation]

    @classmethod
    def of(cls, response: TranslateResponse) -> DeepLXOfficialResponse:
        translation = DeepLXTranslation(
            detected_source_language=deeplx_code(response.source_lang),
            text=response.translation or "",
        )
        return cls(translations=[translation])


class DeepLXError(msgspec.Struct, kw_only=True):
    code: int
    message: str


def deeplx_code(tag: str) -> str:
    """A language as DeepL's backend names the one it translated from: `zh-Hans` -> `ZH`."""
    return tag.split("-", 1)[0].upper()


def request_id() -> int:
    """An id like DeepLX's (its `getRandomNumber`): six digits, then three zeros."""
    return (secrets.randbelow(99999) + 100000) * 1000
