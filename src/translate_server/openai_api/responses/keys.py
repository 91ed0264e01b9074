"""What the OpenAI domain provides to the app's services for responses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from translate_server.services import Key

if TYPE_CHECKING:
    from translate_server.openai_api.responses.service import ResponsesService

RESPONSES: Key[ResponsesService] = Key("responses")
