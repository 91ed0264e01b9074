"""What the OpenAI domain provides to the app's services for chat."""

from __future__ import annotations

from typing import TYPE_CHECKING

from translate_server.services import Key

if TYPE_CHECKING:
    from translate_server.openai_api.chat.service import ChatService

CHAT: Key[ChatService] = Key("chat")
