"""Tokenizing and detokenizing for vLLM's routes, with the served model's tokenizer (its LoRA
adapters share it): a chat is rendered as /v1/chat/completions renders it, a prompt as
/v1/completions reads it. Nothing is generated, so nothing is admitted."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from translate_server.errors import InvalidRequestError
from translate_server.inference.generation import THREAD_PROMPT_CHARS
from translate_server.openai_api.chat.service import chat_message
from translate_server.openai_api.tokenizer.protocol import (
    DetokenizeRequest,
    DetokenizeResponse,
    TokenizeRequest,
    TokenizeResponse,
)

if TYPE_CHECKING:
    from translate_server.inference.generation import GenerationService
    from translate_server.inference.served_models import ServedModels
    from translate_server.settings import LimitSettings


class TokenizerService:
    def __init__(
        self, generation: GenerationService, limits: LimitSettings, models: ServedModels
    ) -> None:
        self.generation = generation
        self.engine = generation.engine
        self.limits = limits
        self.models = models

    async def tokenize(self, request: TokenizeRequest) -> TokenizeResponse:
        self.models.named(request.model)  # a 404 for a model not served
        if (request.prompt is None) == (request.messages is None):
            raise InvalidRequestError(
                "Send either `prompt` or `messages`.", param="prompt", code="invalid_request"
            )
        if request.messages is not None:
            tokens = await self._tokenize_chat(request)
        else:
            tokens = await self._tokenize_prompt(request.prompt or "", request)
        strings = self.engine.token_strings(tokens) if request.return_token_strs else None
        return TokenizeResponse(
            count=len(tokens),
            max_model_len=self.engine.info.max_model_len,
            tokens=tokens,
            token_strs=strings,
        )

    async def detokenize(self, request: DetokenizeRequest) -> DetokenizeResponse:
        self.models.named(request.model)
        if len(request.tokens) > self.engine.info.max_model_len:
            raise InvalidRequestError(
                f"At most {self.engine.info.max_model_len} tokens (the model's context).",
                param="tokens",
                code="context_length_exceeded",
            )
        return DetokenizeResponse(prompt=self.engine.detokenize(request.tokens))

    async def _tokenize_prompt(self, prompt: str, request: TokenizeRequest) -> list[int]:
        # As /v1/completions reads a raw prompt, and as vLLM's /tokenize: special tokens
        # spelled in it are special.
        special = True if request.add_special_tokens is None else request.add_special_tokens

        def tokenize() -> list[int]:
            return self.engine.tokenize_text(
                prompt, special_tokens_as_text=False, add_special_tokens=special
            )

        if len(prompt) < THREAD_PROMPT_CHARS:
            return tokenize()
        return await asyncio.to_thread(tokenize)

    async def _tokenize_chat(self, request: TokenizeRequest) -> list[int]:
        messages = request.messages or []
        _refuse_unsupported(request)
        if not self.engine.info.chat_template:
            raise InvalidRequestError(
                "The served model is a base model without a chat template: it takes a "
                "`prompt`, not `messages`.",
                param="messages",
                code="chat_not_supported",
            )
        if len(messages) > self.limits.max_messages:
            raise InvalidRequestError(
                f"At most {self.limits.max_messages} messages per request.", param="messages"
            )
        rendered = [chat_message(i, message) for i, message in enumerate(messages)]
        return (await self.generation.render(rendered)).token_ids


def _refuse_unsupported(request: TokenizeRequest) -> None:
    """The chat options whose other values this server's chat never renders with: refused by
    name, rather than answered with tokens no chat request would be given."""
    unsupported = {
        "add_generation_prompt": not request.add_generation_prompt,
        "continue_final_message": request.continue_final_message,
        "add_special_tokens": bool(request.add_special_tokens),
        "chat_template": request.chat_template is not None,
        "chat_template_kwargs": bool(request.chat_template_kwargs),
        "tools": bool(request.tools),
    }
    for param, asked in unsupported.items():
        if asked:
            raise InvalidRequestError(
                f"`{param}` is not served: chats are rendered with the model's own template "
                "and a generation prompt, as /v1/chat/completions renders them.",
                param=param,
                code="unsupported_parameter",
            )
