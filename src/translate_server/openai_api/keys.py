"""What the OpenAI domain provides to the app's services, and its handlers' typed access."""

from __future__ import annotations

from typing import TYPE_CHECKING

from translate_server.services import Key

if TYPE_CHECKING:
    from translate_server.openai_api.chat.service import ChatService
    from translate_server.openai_api.completions.service import CompletionService
    from translate_server.openai_api.responses.service import ResponsesService

CHAT: Key[ChatService] = Key("chat")
COMPLETIONS: Key[CompletionService] = Key("completions")
RESPONSES: Key[ResponsesService] = Key("responses")
