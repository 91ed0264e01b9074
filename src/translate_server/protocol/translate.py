"""The plain translation API."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from translate_server.protocol.base import RequestStruct, ResponseStruct, Usage

LanguageCode = Annotated[
    str,
    Meta(
        min_length=2,
        max_length=35,
        description="BCP-47 language tag, e.g. `en`, `de`, `pt-BR`, `zh-Hant`.",
        examples=["de"],
    ),
]


class TranslateRequest(RequestStruct, kw_only=True):
    text: Annotated[
        str | list[str],
        Meta(description="A text, or a list of texts translated independently and concurrently."),
    ]
    source_lang: LanguageCode
    target_lang: LanguageCode
    max_tokens: Annotated[int, Meta(ge=1)] | None = None
    model: str | None = None
    timeout: Annotated[float, Meta(gt=0.0)] | None = None


class TranslateResponse(ResponseStruct, kw_only=True):
    translation: str | None = None
    translations: list[str] | None = None
    # "stop" when the translation ended by itself, "length" when max_tokens cut it short.
    finish_reason: str | None = None
    finish_reasons: list[str] | None = None
    source_lang: str
    target_lang: str
    model: str
    usage: Usage
