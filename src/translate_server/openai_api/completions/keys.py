"""What the OpenAI domain provides to the app's services for completions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from translate_server.services import Key

if TYPE_CHECKING:
    from translate_server.openai_api.completions.service import CompletionService

COMPLETIONS: Key[CompletionService] = Key("completions")
