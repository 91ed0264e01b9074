"""One piece's engine request before it is sent: its prompt rendered and tokenized once, the
piece's own share of its tokens against what one request may take, and its sampling (greedy,
its token budget, its stop strings, the engine's priority).
"""

from __future__ import annotations

from functools import lru_cache

from translate_server.errors import InvalidRequestError
from translate_server.inference.engine import SamplingOptions
from translate_server.inference.generation import GenerationService, Prompt
from translate_server.settings import LimitSettings
from translate_server.text.languages import Language
from translate_server.translation.planning.plan import Job, Piece
from translate_server.translation.planning.planner import MAX_PIECE_TOKENS
from translate_server.translation.prompts.templates import (
    PromptTemplate,
    build_translation_prompt,
    translation_stop,
    translation_token_budget,
)


class PiecePrompts:
    def __init__(
        self,
        generation: GenerationService,
        limits: LimitSettings,
        template: PromptTemplate | None,
        priority: int,
    ) -> None:
        self.generation = generation
        self.limits = limits
        self.template = template
        self.priority = priority  # the engine's scheduling order of every request made here

    def _token_budget(self, overhead: int, param: str) -> int:
        """Source tokens one request can take beside `overhead` tokens of instructions, with
        room for a translation of about three times the source."""
        piece_tokens = self.template.piece_tokens if self.template else MAX_PIECE_TOKENS
        budget = min(piece_tokens, (self.generation.max_model_len - overhead - 16) // 4)
        if budget < 1:
            raise InvalidRequestError(
                "This model's context is too short for the translation instructions.",
                param=param,
                code="context_length_exceeded",
            )
        return budget

    @lru_cache(maxsize=1024)  # noqa: B019 - one translator per app; the key is small
    def _overhead(
        self,
        source: Language,
        target: Language,
        glossary: tuple[tuple[str, str], ...],
        formality: str,
        examples: tuple[tuple[str, str], ...] = (),
        context: str | None = None,
        instructions: tuple[str, ...] = (),
    ) -> int:
        prompt = build_translation_prompt(
            "",
            source,
            target,
            glossary=dict(glossary),
            formality=formality,
            template=self.template,
            examples=examples,
            context=context,
            instructions=instructions,
        )
        return self.generation.check(self.generation.render_inline(prompt), "text").tokens

    async def tokenized(self, piece: Piece, job: Job) -> tuple[Prompt, int, int]:
        """The piece's prompt, rendered and tokenized once; the piece's own share of its
        tokens (the prompt less the instructions around it), and how many it may have."""
        formality = job.request.formality
        # A translation memory's fuzzy matches, where it has some, are the prompt's examples;
        # they, and the request's context, are instructions, not the piece's own tokens.
        context = job.request.context
        text = build_translation_prompt(
            piece.text,
            piece.source,
            job.target,
            glossary=piece.glossary,
            formality=formality,
            template=self.template,
            examples=piece.examples,
            context=context,
            instructions=job.instructions,
        )
        prompt = await self.generation.render(text)
        overhead = self._overhead(
            piece.source,
            job.target,
            tuple(piece.glossary.items()),
            formality,
            piece.examples,
            context,
            job.instructions,
        )
        return prompt, max(1, prompt.tokens - overhead), self._token_budget(overhead, piece.param)

    def options(
        self, prompt: Prompt, piece: Piece, source_tokens: int, max_tokens: int | None
    ) -> SamplingOptions:
        remaining = self.generation.remaining_context(self.generation.check(prompt, piece.param))
        if max_tokens is None:
            budget = translation_token_budget(source_tokens, remaining, self.limits.max_tokens)
        else:
            budget = min(max_tokens, remaining)
        # Greedy: a translation should not change from one call to the next.
        return SamplingOptions(
            max_tokens=budget,
            temperature=0.0,
            stop=translation_stop(piece.text, self.template),
            priority=self.priority,
            adapter=piece.adapter,
        )
