"""DeepL Write (`/v2/write/rephrase`, `/v2/write/correct`): each text improved, or only
corrected, in its own language (or the variant `target_lang` names) by an instruction-tuned
model; a writing style or a tone becomes an instruction, fenced as a translation's are.

A base model follows no instructions: it gets the same 400 as custom instructions. Every text
is one engine request, all of a request's admitted at once and run concurrently. An answer that
is not a rewrite of its text (translation/guard/rewrite.py) is asked once more, sampled; a
second one that is not either leaves the text as it was sent.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Literal

import msgspec
import structlog
from msgspec import Meta

from translate_server.errors import InvalidRequestError
from translate_server.inference.engine import ChatMessage, SamplingOptions
from translate_server.inference.generation import Prompt
from translate_server.observability.record import RequestRecord
from translate_server.text.languages import Language, requested_language
from translate_server.translation.guard.checks import base_language
from translate_server.translation.guard.findings import findings
from translate_server.translation.guard.quality_guard import RETRY_SAMPLING
from translate_server.translation.guard.rewrite import check_rewrite
from translate_server.translation.prompts.instructions import refuse_on_base_model
from translate_server.translation.prompts.templates import (
    build_write_messages,
    translation_stop,
    translation_token_budget,
)
from translate_server.translation.service.translation_service import TranslationService
from translate_server.wire import RequestStruct

log = structlog.get_logger(__name__)

Task = Literal["rephrase", "correct"]
# The warning of a text sent back as it came: no answer was a rewrite of it.
NOT_REWRITTEN = "not_rewritten"
STYLES = {
    "simple": "Write simply: short sentences and plain, everyday words.",
    "business": "Write in a clear, professional business style.",
    "academic": "Write in a precise, formal academic style.",
    "casual": "Write in a relaxed, casual, conversational style.",
}
TONES = {
    "enthusiastic": "Use an enthusiastic, energetic tone.",
    "friendly": "Use a warm, friendly tone.",
    "confident": "Use a confident, assertive tone.",
    "diplomatic": "Use a diplomatic, tactful tone.",
}


class WriteRequest(RequestStruct, kw_only=True):
    text: Annotated[list[str], Meta(min_length=1, max_length=50)]
    target_lang: Annotated[str, Meta(min_length=2, max_length=35)] | None = None
    writing_style: str | None = None
    tone: str | None = None
    auth_key: str | None = None


class WriteImprovement(msgspec.Struct, kw_only=True):
    text: str
    detected_source_language: str
    target_language: str


class WriteResponse(msgspec.Struct, kw_only=True):
    improvements: list[WriteImprovement]


def write_instructions(writing_style: str | None, tone: str | None) -> list[str]:
    """A writing style or a tone (DeepL's values, `prefer_` ones included) as instructions;
    `default` is none, and both at once is a 400, as at DeepL."""
    style = _setting(writing_style, STYLES, "writing_style")
    mood = _setting(tone, TONES, "tone")
    if style and mood:
        raise InvalidRequestError(
            "Set writing_style or tone, not both.", param="tone", code="invalid_request"
        )
    return [instruction for instruction in (style, mood) if instruction]


def _setting(value: str | None, known: dict[str, str], param: str) -> str | None:
    if value is None or value.lower() in ("default", ""):
        return None
    name = value.lower().removeprefix("prefer_")
    if name not in known:
        raise InvalidRequestError(
            f"Value for '{param}' not supported; one of: default, "
            + ", ".join(f"{n}, prefer_{n}" for n in known)
            + ".",
            param=param,
        )
    return known[name]


class DeepLWrite:
    def __init__(self, translation: TranslationService) -> None:
        self.translation = translation

    async def improve(
        self, request: WriteRequest, task: Task, record: RequestRecord, deadline: float
    ) -> WriteResponse:
        translation = self.translation
        refuse_on_base_model(
            translation.model_name,
            translation.planner.follows_instructions,
            "text",
            f"/v2/write/{task} rewrites text by instruction",
        )
        record.model = translation.model_name
        instructions = write_instructions(request.writing_style, request.tone)
        target = (
            requested_language(request.target_lang, "target_lang") if request.target_lang else None
        )
        sources = [self._source(text, i, target) for i, text in enumerate(request.text)]
        ticket = translation.admission.admit(len(request.text))
        try:
            async with asyncio.TaskGroup() as group:
                tasks = [
                    group.create_task(
                        self._one(text, target or source, task, instructions, record, deadline, i)
                    )
                    for i, (text, source) in enumerate(zip(request.text, sources, strict=True))
                ]
        except* Exception as failures:  # noqa: BLE001 - the first failure is raised again
            raise failures.exceptions[0] from None
        finally:
            ticket.release()
        return WriteResponse(
            improvements=[
                WriteImprovement(
                    text=task_.result(),
                    detected_source_language=source.tag.split("-")[0],
                    target_language=(target or source).tag,
                )
                for task_, source in zip(tasks, sources, strict=True)
            ]
        )

    def _source(self, text: str, index: int, target: Language | None) -> Language:
        """The text's language, detected; with a target named, that where none is found."""
        param = f"text[{index}]"
        if target is None:
            return self.translation.detection.detect(text, param, index).language
        found = self.translation.detection.candidates(text, 1)
        return found[0].language if found else target

    async def _one(
        self,
        text: str,
        language: Language,
        task: Task,
        instructions: list[str],
        record: RequestRecord,
        deadline: float,
        index: int,
    ) -> str:
        if not text.strip():
            return text
        generation = self.translation.generation
        template = self.translation.pieces.prompts.template

        def messages(of: str) -> list[ChatMessage]:
            return build_write_messages(
                of, language.name, task, template=template, instructions=instructions
            )

        prompt = generation.check(await generation.render(messages(text)), f"text[{index}]")
        # The text's own tokens (the prompt less its instructions) size the answer's budget:
        # a small model that rambles stops about where a rewrite would.
        overhead = generation.render_inline(messages("")).tokens
        budget = translation_token_budget(
            max(1, prompt.tokens - overhead),
            generation.remaining_context(prompt),
            self.translation.limits.max_tokens,
        )
        options = SamplingOptions(
            max_tokens=budget, temperature=0.0, stop=translation_stop(text, template)
        )
        return await self._guarded(text, language, task, prompt, options, record, deadline)

    async def _guarded(
        self,
        text: str,
        language: Language,
        task: Task,
        prompt: Prompt,
        options: SamplingOptions,
        record: RequestRecord,
        deadline: float,
    ) -> str:
        """The answer where it is a rewrite of the text; else one more, sampled; else the
        text as it was sent (a warning on the log line and in /metrics' quality counters)."""
        generation = self.translation.generation
        detected = self.translation.detection.candidates(text, 1)
        writing = base_language(language.tag)
        same = not detected or base_language(detected[0].language.tag) == writing
        failures: list[str] = []
        # The second try is sampled, as the translation guard's is.
        for attempt in (options, msgspec.structs.replace(options, **RETRY_SAMPLING)):
            completion = await generation.complete(prompt, attempt, record, deadline)
            verdict = check_rewrite(
                completion.texts[0],
                text,
                task=task,
                language_name=language.name,
                language=writing,
                same_language=same,
                detect=self._detect,
            )
            if verdict.failure is None:
                findings(record).quality_checked(tuple(failures), (), bool(failures))
                return verdict.text
            failures.append(verdict.failure)
        findings(record).quality_checked(tuple(failures), (NOT_REWRITTEN,), True)
        log.warning("write_returned_as_sent", task=task, failures=failures)
        return text

    def _detect(self, text: str) -> tuple[str, float] | None:
        found = self.translation.detection.candidates(text, 1)
        return (base_language(found[0].language.tag), found[0].confidence) if found else None
