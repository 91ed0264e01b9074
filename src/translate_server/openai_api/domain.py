"""The OpenAI domain: /v1/chat/completions, /v1/responses, /v1/completions and /v1/models,
and vLLM's /tokenize, /detokenize and /version."""

from __future__ import annotations

from translate_server.openai_api.chat.keys import CHAT
from translate_server.openai_api.completions.keys import COMPLETIONS
from translate_server.openai_api.responses.keys import RESPONSES
from translate_server.openai_api.routes import openai_router
from translate_server.openai_api.tokenizer.keys import TOKENIZER
from translate_server.registration import Domain, Opening
from translate_server.services import SERVED_MODELS


async def _open(opening: Opening) -> None:
    from translate_server.openai_api.chat.service import ChatService
    from translate_server.openai_api.completions.service import CompletionService
    from translate_server.openai_api.responses.service import ResponsesService
    from translate_server.openai_api.tokenizer.service import TokenizerService

    found = opening.services
    parts = (found.generation, found.admission, found.limits, found.model_name)
    chat = ChatService(*parts, found[SERVED_MODELS])
    found.provide(CHAT, chat)
    found.provide(RESPONSES, ResponsesService(chat))
    found.provide(COMPLETIONS, CompletionService(*parts, found[SERVED_MODELS]))
    found.provide(TOKENIZER, TokenizerService(found.generation, found.limits, found[SERVED_MODELS]))


DOMAIN = Domain(
    "openai",
    routes=lambda settings: [openai_router()],
    open=_open,
    needs=(SERVED_MODELS,),
    provides=(CHAT, RESPONSES, COMPLETIONS, TOKENIZER),
)
