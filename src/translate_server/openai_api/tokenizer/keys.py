"""What the OpenAI domain provides to the app's services for the tokenizer routes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from translate_server.services import Key

if TYPE_CHECKING:
    from translate_server.openai_api.tokenizer.service import TokenizerService

TOKENIZER: Key[TokenizerService] = Key("tokenizer")
