"""DeepL API v2 wire types: `/v2/translate` and `/v2/languages`, as DeepL's clients send and
read them, and their conversion to and from the plain translation API."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, cast

import msgspec
from msgspec import Meta

from translate_server.compat.deepl.glossaries import Glossary
from translate_server.errors import ApiError, InvalidRequestError
from translate_server.text.languages import Language
from translate_server.translation.protocol import (
    CONTEXT_CHARS,
    TranslateRequest,
    TranslateResponse,
)
from translate_server.wire import RequestStruct, ResponseStruct

# DeepL's formality values; the `prefer_` ones never fail, and neither do ours.
_FORMALITY = {
    "default": "default",
    "more": "formal",
    "prefer_more": "formal",
    "less": "informal",
    "prefer_less": "informal",
}
MODEL_TYPES = ("quality_optimized", "prefer_quality_optimized", "latency_optimized")
Tags = str | list[str]


class DeepLTranslateRequest(RequestStruct, kw_only=True):
    text: Annotated[list[str], Meta(min_length=1)]
    target_lang: Annotated[str, Meta(min_length=2, max_length=35)]
    source_lang: Annotated[str, Meta(min_length=2, max_length=35)] | None = None
    formality: str | None = None
    tag_handling: Literal["html", "xml"] | None = None
    glossary_id: str | None = None
    glossary_ids: list[str] | None = None  # up to five, applied in order
    # Elements whose text stays as it is (html and xml): honoured.
    ignore_tags: Tags | None = None
    # Shown to the model with every piece, for meaning only: never translated nor billed;
    # longer than CONTEXT_CHARS, its end is kept (what comes right before the text).
    context: str | None = None
    # Accepted and documented, without effect on our output: the model sees each text whole
    # (pieces are split at paragraphs, never mid-sentence) and keeps its formatting; one model
    # serves every request.
    split_sentences: Literal["0", "1", "nonewlines"] | None = None
    preserve_formatting: bool | None = None
    non_splitting_tags: Tags | None = None
    splitting_tags: Tags | None = None
    outline_detection: bool | None = None
    model_type: str | None = None
    show_billed_characters: bool | None = None
    # Instructions to the model (an instruction-tuned one only): the request's own and a
    # style rule's (style_rules.py), fenced into the prompt.
    custom_instructions: list[str] | None = None
    style_id: str | None = None
    # Accepted without effect: markup is parsed by one algorithm, whichever is named; every
    # language the model writes is served, beta or not.
    tag_handling_version: Literal["v1", "v2"] | None = None
    enable_beta_languages: bool | None = None
    # One of the key's translation memories (/v3/translation_memories, /memories): exact
    # matches are answered from it, close ones shown to the model as examples.
    translation_memory_id: Annotated[str, Meta(min_length=1)] | None = None
    translation_memory_threshold: Annotated[int, Meta(ge=0, le=100)] | None = None
    # DeepL's legacy way of sending the key; checked by the router's hook.
    auth_key: str | None = None

    def to_translate_request(
        self, glossary_ids: list[str] | None = None, instructions: list[str] | None = None
    ) -> TranslateRequest:
        formality = _FORMALITY.get((self.formality or "default").lower())
        if formality is None:
            raise InvalidRequestError("Value for 'formality' not supported.", param="formality")
        if self.model_type is not None and self.model_type not in MODEL_TYPES:
            raise InvalidRequestError("Value for 'model_type' not supported.", param="model_type")
        memory = memory_fields(self.translation_memory_id, self.translation_memory_threshold)
        return TranslateRequest(
            text=self.text,
            source_lang=self.source_lang or "auto",
            target_lang=self.target_lang,
            format=self.tag_handling or "text",
            # `_FORMALITY`'s values are the request's formality literals.
            formality=formality,  # type: ignore[arg-type]
            glossary_id=glossary_ids or None,
            ignore_tags=tag_list(self.ignore_tags) or None,
            instructions=instructions or None,
            context=self.context[-CONTEXT_CHARS:].strip() or None if self.context else None,
            **memory,
        )


def memory_fields(memory_id: str | None, threshold: int | None) -> dict[str, Any]:
    """DeepL's memory parameters as the translation request's (our default threshold where
    none is given); a threshold without a memory is refused, as DeepL's client refuses it."""
    if memory_id is None:
        if threshold is not None:
            raise InvalidRequestError(
                "'translation_memory_threshold' requires 'translation_memory_id'.",
                param="translation_memory_threshold",
            )
        return {}
    fields: dict[str, Any] = {"memory": memory_id}
    if threshold is not None:
        fields["memory_threshold"] = float(threshold)
    return fields


def tag_list(tags: Tags | None) -> list[str]:
    """DeepL takes tags as a list or as one comma-separated string."""
    if tags is None:
        return []
    names = tags if isinstance(tags, list) else [tags]
    return [name.strip() for joined in names for name in joined.split(",") if name.strip()]


class DeepLTranslation(ResponseStruct, kw_only=True):
    detected_source_language: str
    text: str
    billed_characters: int
    model_type_used: str | None = None
    # Not DeepL's: what the quality guard found wrong (DeepL's clients ignore unknown fields).
    warnings: list[str] | None = None


class DeepLTranslateResponse(msgspec.Struct, kw_only=True):
    translations: list[DeepLTranslation]

    @classmethod
    def of(
        cls,
        request: DeepLTranslateRequest,
        response: TranslateResponse,
        kept: dict[int, str] | None = None,
    ) -> DeepLTranslateResponse:
        """`kept`: texts whose language could not be detected, by index, returned as they
        are (with the target as their language): the rest of the batch is translated."""
        kept = kept or {}
        translations = iter(response.translations or [])
        if response.detected_source_langs:
            sources = iter([deepl_code(d.language) for d in response.detected_source_langs])
        else:
            sources = iter([deepl_code(response.source_lang)] * len(request.text))
        model_type = request.model_type and "quality_optimized"
        warnings = iter(response.warnings or ())
        result = []
        for i, original in enumerate(request.text):
            warned = None
            if i in kept:
                source, text = deepl_code(kept[i]), original
            else:
                source, text = next(sources), next(translations)
                # A batch's warnings: one list per text.
                warned = cast("list[str] | None", next(warnings, None) or None)
            result.append(
                DeepLTranslation(
                    detected_source_language=source,
                    text=text,
                    billed_characters=len(original),
                    model_type_used=model_type,
                    warnings=warned,
                )
            )
        return cls(translations=result)


class DeepLUsage(msgspec.Struct, kw_only=True):
    character_count: int
    character_limit: int


class GlossaryCreate(RequestStruct, kw_only=True):
    name: Annotated[str, Meta(min_length=1, max_length=1024)]
    source_lang: Annotated[str, Meta(min_length=2, max_length=35)]
    target_lang: Annotated[str, Meta(min_length=2, max_length=35)]
    entries: str
    entries_format: str = "tsv"
    auth_key: str | None = None


class GlossaryList(msgspec.Struct, kw_only=True):
    glossaries: list[Glossary]


class GlossaryLanguagePair(msgspec.Struct, kw_only=True):
    source_lang: str
    target_lang: str


class GlossaryLanguagePairs(msgspec.Struct, kw_only=True):
    supported_languages: list[GlossaryLanguagePair]


class DeepLLanguage(msgspec.Struct, kw_only=True, omit_defaults=True):
    language: str
    name: str
    supports_formality: bool | None = None
    # Targets only: how well the served model writes it, where measured (our addition;
    # DeepL's clients ignore it).
    support: str | None = None


def deepl_code(tag: str) -> str:
    """BCP-47 `pt-BR` -> DeepL's `PT-BR`; `zh-Hans` -> `ZH-HANS`."""
    return tag.upper()


# Languages DeepL takes as targets only as their variants (its clients refuse bare `EN` and
# `PT` as targets): /v2/languages and /v3/languages list these instead.
TARGET_VARIANTS: dict[str, list[tuple[str, str]]] = {
    "en": [("en-GB", "English (British)"), ("en-US", "English (American)")],
    "pt": [("pt-BR", "Portuguese (Brazilian)"), ("pt-PT", "Portuguese (European)")],
}


def deepl_languages(
    languages: list[Language],
    kind: str,
    support: Callable[[str], str | None] = lambda tag: None,
) -> list[DeepLLanguage]:
    """DeepL's language list; as targets, English and Portuguese come as their variants (the
    DeepL clients refuse bare `EN` and `PT` as targets), with the served model's `support`."""
    if kind != "target":
        return [DeepLLanguage(language=deepl_code(lang.tag), name=lang.name) for lang in languages]
    result = []
    for lang in languages:
        for tag, name in TARGET_VARIANTS.get(lang.tag, [(lang.tag, lang.name)]):
            result.append(
                DeepLLanguage(
                    language=deepl_code(tag),
                    name=name,
                    supports_formality=True,
                    support=support(lang.tag),
                )
            )
    return result


class DeepLError(msgspec.Struct):
    message: str


class NotFoundError(ApiError):
    """A path, or a thing on it, that DeepL's API does not know: a 404 its clients read."""

    status_code = 404
    code = "not_found"
