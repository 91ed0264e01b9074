"""/translate: each text becomes its own engine request, all submitted at once."""

from __future__ import annotations

import asyncio

from translate_server.admission import Admission
from translate_server.engine import SamplingOptions
from translate_server.errors import InvalidRequestError, ModelNotFoundError
from translate_server.generation import Completion, GenerationService, Prompt
from translate_server.languages import Language, UnknownLanguageError, resolve_language
from translate_server.observability import RequestRecord
from translate_server.prompting import (
    build_translation_messages,
    clean_translation,
    translation_stop,
    translation_token_budget,
)
from translate_server.protocol.base import Usage
from translate_server.protocol.translate import TranslateRequest, TranslateResponse
from translate_server.settings import LimitSettings


class TranslationService:
    def __init__(
        self,
        generation: GenerationService,
        admission: Admission,
        limits: LimitSettings,
        model_name: str,
    ) -> None:
        self.generation = generation
        self.admission = admission
        self.limits = limits
        self.model_name = model_name

    async def translate(
        self, request: TranslateRequest, record: RequestRecord, deadline: float
    ) -> TranslateResponse:
        record.model = self.model_name
        texts, is_batch = self._texts(request)
        source = _language(request.source_lang, "source_lang")
        target = _language(request.target_lang, "target_lang")
        if request.model is not None and request.model != self.model_name:
            raise ModelNotFoundError(request.model, self.model_name)
        if request.max_tokens is not None and request.max_tokens > self.limits.max_tokens:
            raise InvalidRequestError(
                f"max_tokens may be at most {self.limits.max_tokens}.", param="max_tokens"
            )

        ticket = self.admission.admit(len(texts))
        try:
            prompts = [
                self._prompt(text, source, target, _param(is_batch, i))
                for i, text in enumerate(texts)
            ]
            async with asyncio.TaskGroup() as group:
                tasks = [
                    group.create_task(
                        self.generation.complete(
                            prompt, self._options(prompt, text, request.max_tokens), record,
                            deadline,
                        )
                    )
                    for prompt, text in zip(prompts, texts, strict=True)
                ]
        except* Exception as failures:
            # One failed text fails the request (its siblings are cancelled): report the first.
            raise failures.exceptions[0] from None
        finally:
            ticket.release()

        completions: list[Completion] = [task.result() for task in tasks]
        translations = [
            clean_translation(completion.texts[0], text)
            for completion, text in zip(completions, texts, strict=True)
        ]
        finish_reasons = [completion.finish_reasons[0] or "stop" for completion in completions]
        record.finish_reason = "length" if "length" in finish_reasons else "stop"
        usage = Usage.of(
            sum(c.prompt_tokens for c in completions),
            sum(c.completion_tokens for c in completions),
        )
        common = {
            "source_lang": source.tag,
            "target_lang": target.tag,
            "model": self.model_name,
            "usage": usage,
        }
        if is_batch:
            return TranslateResponse(
                translations=translations, finish_reasons=finish_reasons, **common
            )
        return TranslateResponse(
            translation=translations[0], finish_reason=finish_reasons[0], **common
        )

    def _texts(self, request: TranslateRequest) -> tuple[list[str], bool]:
        is_batch = isinstance(request.text, list)
        texts = request.text if isinstance(request.text, list) else [request.text]
        if not texts:
            raise InvalidRequestError("`text` must hold at least one text.", param="text")
        if len(texts) > self.limits.max_texts:
            raise InvalidRequestError(
                f"At most {self.limits.max_texts} texts per request.", param="text"
            )
        for i, text in enumerate(texts):
            param = _param(is_batch, i)
            if not text.strip():
                raise InvalidRequestError("There is no text to translate.", param=param)
            if len(text) > self.limits.max_text_chars:
                raise InvalidRequestError(
                    f"A text may be at most {self.limits.max_text_chars} characters long; "
                    f"this one has {len(text)}.",
                    param=param,
                    code="string_above_max_length",
                )
        return texts, is_batch

    def _prompt(self, text: str, source: Language, target: Language, param: str) -> Prompt:
        messages = build_translation_messages(text, source.name, target.name)
        return self.generation.prepare(messages, param)

    def _options(self, prompt: Prompt, text: str, max_tokens: int | None) -> SamplingOptions:
        remaining = self.generation.remaining_context(prompt)
        if max_tokens is None:
            source_tokens = self.generation.engine.count_tokens(text)
            budget = translation_token_budget(source_tokens, remaining, self.limits.max_tokens)
        else:
            budget = min(max_tokens, remaining)
        # Greedy: a translation should not change from one call to the next.
        return SamplingOptions(max_tokens=budget, temperature=0.0, stop=translation_stop(text))


def _language(code: str, param: str) -> Language:
    try:
        return resolve_language(code)
    except UnknownLanguageError as exc:
        raise InvalidRequestError(f"{exc}.", param=param, code="unsupported_language") from None


def _param(is_batch: bool, index: int) -> str:
    return f"text[{index}]" if is_batch else "text"
