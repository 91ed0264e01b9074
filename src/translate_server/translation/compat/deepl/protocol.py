"""DeepL API v2 wire types: `/v2/translate` and `/v2/languages`, as DeepL's clients send and
read them, and their conversion to and from the plain translation API."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from translate_server.translation.languages import Language
from translate_server.translation.protocol import TranslateRequest, TranslateResponse
from translate_server.wire import RequestStruct

# DeepL's formality values; the `prefer_` ones never fail, and neither do ours.
_FORMALITY = {"more": "formal", "prefer_more": "formal", "less": "informal",
              "prefer_less": "informal"}


class DeepLTranslateRequest(RequestStruct, kw_only=True):
    text: Annotated[list[str], Meta(min_length=1)]
    target_lang: Annotated[str, Meta(min_length=2, max_length=35)]
    source_lang: Annotated[str, Meta(min_length=2, max_length=35)] | None = None
    formality: str | None = None
    tag_handling: Literal["html", "xml"] | None = None
    # Accepted and ignored: context, split_sentences, preserve_formatting, glossary_id, ...

    def to_translate_request(self) -> TranslateRequest:
        return TranslateRequest(
            text=self.text,
            source_lang=self.source_lang or "auto",
            target_lang=self.target_lang,
            format="html" if self.tag_handling else "text",
            formality=_FORMALITY.get((self.formality or "").lower(), "default"),  # type: ignore[arg-type]
        )


class DeepLTranslation(msgspec.Struct, kw_only=True, omit_defaults=True):
    detected_source_language: str
    text: str
    billed_characters: int
    # Not DeepL's: what the quality guard found wrong (DeepL's clients ignore unknown fields).
    warnings: list[str] | None = None


class DeepLTranslateResponse(msgspec.Struct, kw_only=True):
    translations: list[DeepLTranslation]

    @classmethod
    def of(cls, request: DeepLTranslateRequest,
           response: TranslateResponse) -> DeepLTranslateResponse:
        translations = response.translations or []
        if response.detected_source_langs:
            sources = [deepl_code(d.language) for d in response.detected_source_langs]
        else:
            sources = [deepl_code(response.source_lang)] * len(translations)
        warnings = response.warnings or [[]] * len(translations)
        return cls(translations=[
            DeepLTranslation(detected_source_language=source, text=text,
                             billed_characters=len(original), warnings=warned or None)
            for source, text, original, warned in zip(sources, translations, request.text,
                                                      warnings, strict=True)
        ])


class DeepLLanguage(msgspec.Struct, kw_only=True, omit_defaults=True):
    language: str
    name: str
    supports_formality: bool | None = None


def deepl_code(tag: str) -> str:
    """BCP-47 `pt-BR` -> DeepL's `PT-BR`; `zh-Hans` -> `ZH-HANS`."""
    return tag.upper()


def deepl_languages(languages: list[Language], kind: str) -> list[DeepLLanguage]:
    """DeepL's language list; as targets, English and Portuguese come as their variants (the
    DeepL clients refuse bare `EN` and `PT` as targets)."""
    if kind != "target":
        return [DeepLLanguage(language=deepl_code(lang.tag), name=lang.name)
                for lang in languages]
    variants = {"en": [("EN-GB", "English (British)"), ("EN-US", "English (American)")],
                "pt": [("PT-BR", "Portuguese (Brazilian)"), ("PT-PT", "Portuguese (European)")]}
    result = []
    for lang in languages:
        for code, name in variants.get(lang.tag, [(deepl_code(lang.tag), lang.name)]):
            result.append(DeepLLanguage(language=code, name=name, supports_formality=True))
    return result


class DeepLError(msgspec.Struct):
    message: str
