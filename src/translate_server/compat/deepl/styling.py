"""What a DeepL translation asks of the model besides translating: its `custom_instructions`
and its style rule's (`style_id`), as one list of instructions for the prompt
(translation/prompts/instructions.py). A base model, which follows none, refuses them."""

from __future__ import annotations

from translate_server.compat.deepl.accounts import DeepLAccounts
from translate_server.compat.deepl.protocol import DeepLTranslateRequest
from translate_server.compat.deepl.style_rules import instructions_of
from translate_server.errors import InvalidRequestError
from translate_server.translation.prompts.instructions import (
    refuse_on_base_model,
    validate_instructions,
)
from translate_server.translation.service import TranslationService


async def requested_instructions(
    body: DeepLTranslateRequest,
    key: str,
    accounts: DeepLAccounts,
    translation: TranslationService,
) -> list[str]:
    """The style rule's instructions, then the request's own (DeepL's limits: 10 of at most
    300 characters). DeepL serves them for eight target languages; any target the model
    writes is served here."""
    own = validate_instructions(body.custom_instructions, "custom_instructions")
    if own and body.model_type == "latency_optimized":
        raise InvalidRequestError(
            "custom_instructions cannot be combined with model_type `latency_optimized`.",
            param="model_type",
        )
    if not own and body.style_id is None:
        return []
    refuse_on_base_model(
        translation.model_name,
        translation.planner.follows_instructions,
        "style_id" if body.style_id is not None else "custom_instructions",
    )
    ruled: list[str] = []
    if body.style_id is not None:
        rule = await accounts.style_rules.get(key, body.style_id)
        if body.target_lang.split("-")[0].lower() != rule.language:
            raise InvalidRequestError(
                f"target_lang must be the style rule's language ({rule.language.upper()}).",
                param="target_lang",
            )
        ruled = instructions_of(rule, body.source_lang)
    return [*ruled, *own]
