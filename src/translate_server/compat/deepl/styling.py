"""What a DeepL translation asks of the model besides translating: its `custom_instructions`
and its style rule's (`style_id`), as one list of instructions for the prompt
(translation/prompts/instructions.py). A base model, which follows none, refuses them.

Texts (`/v2/translate`) and documents (`/v2/document`, read at upload and kept with the job)
resolve them the same way."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from translate_server.compat.deepl.accounts import DeepLAccounts
from translate_server.compat.deepl.protocol import DeepLTranslateRequest
from translate_server.compat.deepl.style_rules import instructions_of
from translate_server.errors import InvalidRequestError
from translate_server.translation.prompts.instructions import (
    refuse_on_base_model,
    validate_instructions,
)
from translate_server.translation.service.translation_service import TranslationService


@dataclass(frozen=True, slots=True)
class Styling:
    """The parts of a DeepL request that ask the model for more than a translation."""

    custom_instructions: Sequence[str] | None
    style_id: str | None
    source_lang: str | None
    target_lang: str


async def requested_instructions(
    body: DeepLTranslateRequest,
    key: str,
    accounts: DeepLAccounts,
    translation: TranslationService,
) -> list[str]:
    """A `/v2/translate` request's instructions (`styled_instructions`); DeepL refuses them
    with its `latency_optimized` model."""
    styling = Styling(body.custom_instructions, body.style_id, body.source_lang, body.target_lang)
    return await styled_instructions(
        styling,
        key,
        accounts,
        translation,
        latency_optimized=body.model_type == "latency_optimized",
    )


async def styled_instructions(
    styling: Styling,
    key: str,
    accounts: DeepLAccounts,
    translation: TranslationService,
    *,
    latency_optimized: bool = False,
) -> list[str]:
    """The style rule's instructions, then the request's own (DeepL's limits: 10 of at most
    300 characters). DeepL serves them for eight target languages; any target the model
    writes is served here."""
    own = validate_instructions(styling.custom_instructions, "custom_instructions")
    if own and latency_optimized:
        raise InvalidRequestError(
            "custom_instructions cannot be combined with model_type `latency_optimized`.",
            param="model_type",
        )
    if not own and styling.style_id is None:
        return []
    refuse_on_base_model(
        translation.model_name,
        translation.planner.follows_instructions,
        "style_id" if styling.style_id is not None else "custom_instructions",
    )
    ruled: list[str] = []
    if styling.style_id is not None:
        rule = await accounts.style_rules.get(key, styling.style_id)
        if styling.target_lang.split("-")[0].lower() != rule.language:
            raise InvalidRequestError(
                f"target_lang must be the style rule's language ({rule.language.upper()}).",
                param="target_lang",
            )
        ruled = instructions_of(rule, styling.source_lang)
    return [*ruled, *own]
