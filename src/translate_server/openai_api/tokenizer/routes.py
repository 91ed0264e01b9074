"""vLLM's POST /tokenize and /detokenize, for clients that count tokens before sending, and
GET /version: thin handlers over the tokenizer service."""

from __future__ import annotations

from typing import Any

from litestar import Request, get, post

from translate_server import __version__
from translate_server.http.openapi import error_responses
from translate_server.http.route_paths import JSON, OPEN
from translate_server.openai_api.tokenizer.keys import TOKENIZER
from translate_server.openai_api.tokenizer.protocol import (
    DetokenizeRequest,
    DetokenizeResponse,
    TokenizeRequest,
    TokenizeResponse,
    VersionResponse,
)
from translate_server.services import services


@post(
    "/tokenize",
    status_code=200,
    summary="Tokenize a prompt or a chat (vLLM's)",
    description="A `prompt` (as /v1/completions reads it) or `messages` (rendered as "
    "/v1/chat/completions renders them) as the served model's token ids, with their `count` "
    "and the model's `max_model_len`; `return_token_strs` adds each token's string. `model` "
    "may name an adapter (they share the model's tokenizer).",
    tags=["openai"],
    opt=JSON,
    responses=error_responses(400, 401, 404),
)
async def tokenize(data: TokenizeRequest, request: Request[Any, Any, Any]) -> TokenizeResponse:
    return await services(request)[TOKENIZER].tokenize(data)


@post(
    "/detokenize",
    status_code=200,
    summary="Detokenize token ids (vLLM's)",
    description="The text of the served model's token ids (at most `max_model_len` of them); "
    "an id outside the vocabulary is a 400.",
    tags=["openai"],
    opt=JSON,
    responses=error_responses(400, 401, 404),
)
async def detokenize(
    data: DetokenizeRequest, request: Request[Any, Any, Any]
) -> DetokenizeResponse:
    return await services(request)[TOKENIZER].detokenize(data)


@get(
    "/version",
    summary="The server's version (vLLM's)",
    tags=["openai"],
    opt=OPEN,  # open, as vLLM's own
)
async def version() -> VersionResponse:
    return VersionResponse(version=__version__)


TOKENIZER_ROUTES = [tokenize, detokenize, version]
