"""The OpenAI domain: /v1/chat/completions, /v1/responses, /v1/completions and /v1/models,
and vLLM's /tokenize, /detokenize and /version."""

from __future__ import annotations

from litestar import Router

from translate_server.accounts import scopes
from translate_server.http.route_paths import scoped
from translate_server.openai_api.chat.keys import CHAT
from translate_server.openai_api.chat.routes import chat_completions
from translate_server.openai_api.completions.keys import COMPLETIONS
from translate_server.openai_api.completions.routes import completions
from translate_server.openai_api.models.routes import list_models, retrieve_model
from translate_server.openai_api.responses.keys import RESPONSES
from translate_server.openai_api.responses.routes import create_response
from translate_server.openai_api.tokenizer.keys import TOKENIZER
from translate_server.openai_api.tokenizer.routes import TOKENIZER_ROUTES
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
    routes=lambda settings: [
        Router(
            "/",
            route_handlers=[
                chat_completions,
                create_response,
                completions,
                list_models,
                retrieve_model,
                *TOKENIZER_ROUTES,
            ],
            opt=scoped(scopes.TRANSLATE),
        )
    ],
    open=_open,
    needs=(SERVED_MODELS,),
    provides=(CHAT, RESPONSES, COMPLETIONS, TOKENIZER),
)
