"""OpenAI's routes (and vLLM's tokenizer routes beside them), under the `translate` scope."""

from __future__ import annotations

from litestar import Router

from translate_server.accounts import scopes
from translate_server.http.route_paths import scoped
from translate_server.openai_api.chat.routes import chat_completions
from translate_server.openai_api.completions.routes import completions
from translate_server.openai_api.models.routes import list_models, retrieve_model
from translate_server.openai_api.responses.routes import create_response
from translate_server.openai_api.tokenizer.routes import TOKENIZER_ROUTES


def openai_router() -> Router:
    return Router(
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
