"""Planning a /translate request: a pure function of the request and the server's limits, run
before admission and without the tokenizer.

Languages are checked or detected, texts split into pieces by characters (HTML into its text
nodes), pieces deduplicated and looked up in the cache. The pieces left to translate are the
request's admission weight.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass

from translate_server.errors import InvalidRequestError
from translate_server.inference.engine import LoraAdapter
from translate_server.inference.request_limits import check_max_tokens
from translate_server.inference.served_models import ServedModels
from translate_server.settings import LimitSettings
from translate_server.text.detection import Detection, LanguageDetection
from translate_server.text.languages import Language, requested_language
from translate_server.translation.planning.cache import TranslationCache
from translate_server.translation.planning.glossary import (
    StoredTerms,
    base_tag,
    entries_in,
    validate_glossary,
)
from translate_server.translation.planning.plan import Piece, Plan, PlannedText, is_auto
from translate_server.translation.prompts.instructions import (
    MAX_PROMPT_INSTRUCTION_CHARS,
    MAX_PROMPT_INSTRUCTIONS,
    refuse_on_base_model,
    validate_instructions,
)
from translate_server.translation.protocol import TranslateRequest
from translate_server.translation.segmentation.markup import parse_html
from translate_server.translation.segmentation.segments import (
    Document,
    split_document,
    split_lines,
    split_sentences,
)

# Source tokens per engine request unless the model's family says otherwise (templates.toml):
# small pieces translate better with small models and spread over the batch; the model's
# context may allow less.
MAX_PIECE_TOKENS = 512
# Characters per piece when splitting before any tokenization, per token of the budget: about
# what one token holds in European languages; denser scripts are split again once tokenized.
CHARS_PER_TOKEN = 3
# Context set aside for the instructions when sizing pieces before tokenization.
PROMPT_ALLOWANCE = 256
# The warning of a translation into a language the served model was measured not to write.
UNSUPPORTED_TARGET = "unsupported_target_language"


@dataclass(frozen=True, slots=True)
class Planner:
    """What planning depends on besides the request: limits, the model's name and context,
    the detector and the cache."""

    limits: LimitSettings
    # The base model and the LoRA adapters beside it, where there are some.
    models: ServedModels
    max_model_len: int
    detection: LanguageDetection
    cache: TranslationCache | None = None
    line_by_line: bool = False
    # The longest piece the model translates whole, measured per model family (templates.toml).
    piece_tokens: int = MAX_PIECE_TOKENS
    piece_sentences: int = 0  # sentences per piece; 0: as many as fit `piece_tokens`
    # How well the model writes each target language (measured), and whether a target it
    # does not write is refused rather than warned about.
    support: Callable[[str], str | None] = lambda tag: None
    refuse_unsupported: bool = False
    # Whether the model follows a client's instructions (a chat family with a chat template).
    follows_instructions: bool = True

    @property
    def model_name(self) -> str:
        return self.models.base

    def plan(
        self,
        request: TranslateRequest,
        memory: Hashable = None,
        stored: Mapping[str, StoredTerms] | None = None,
    ) -> Plan:
        return self.look_up(self.prepare(request, memory, stored))

    def target(self, request: TranslateRequest) -> Language:
        """The request's target language (a 400 for an unknown one)."""
        return requested_language(request.target_lang, "target_lang")

    def look_up(self, plan: Plan) -> Plan:
        """The plan's pieces looked up in the cache (on the event loop: the cache is not
        shared with other threads)."""
        # The cache holds no alternatives: a request for them asks the engine.
        if self.cache is not None and not plan.request.alternatives:
            floor = plan.request.min_quality
            for piece in plan.pieces.values():
                cached = self.cache.get(piece.key)
                if cached is not None and floor is not None and (cached.estimate or 0.0) < floor:
                    cached = None  # estimated under what the request wants: made again
                piece.cached = cached
        return plan

    def prepare(
        self,
        request: TranslateRequest,
        memory: Hashable = None,
        stored: Mapping[str, StoredTerms] | None = None,
    ) -> Plan:
        """Everything but the cache: CPU work linear in the request, which may run in a
        worker thread. `memory` names the translation memory and its revision, whose
        examples a prompt may show: part of every cache key. `stored`: the terms of the
        stored glossaries the request names, per source base language."""
        texts, is_batch = self._texts(request)
        target = self.target(request)
        source = (
            None
            if is_auto(request.source_lang)
            else (requested_language(request.source_lang, "source_lang"))
        )
        named = self.models.named(request.model)  # a 404 for one not served
        self._check_options(request, is_batch)
        glossary = validate_glossary(request.glossary)
        instructions = self._instructions(request)
        plan = Plan(
            request,
            is_batch,
            target,
            {},
            [],
            {},
            notices=self._target_notices(target),
            instructions=instructions,
            glossary_given=bool(glossary) or stored is not None,
        )
        keys = _PieceKeys(self.model_name, request, target, glossary, instructions, memory)
        for i, text in enumerate(texts):
            param = text_param(is_batch, i)
            document = self._split(text, request)
            plan.spans += len(document.pieces)
            document = split_sentences(document, self.piece_sentences)
            detection = self._detect(
                document, source is None, target, param, i if is_batch else None
            )
            language = detection.language if detection else source or target
            adapter = named
            if request.model is None:
                adapter = self.models.route(language.tag, target.tag, request.domain)
            plan.models.append(self.models.name_of(adapter))
            terms = stored.get(base_tag(language.tag)) if stored else None
            slots = [
                keys.piece(plan, text, language, adapter, param, terms) for text in document.pieces
            ]
            if len(plan.pieces) > self.limits.max_pieces:
                raise InvalidRequestError(
                    f"This request would need more than {self.limits.max_pieces} engine "
                    "requests (text nodes, parts of long texts); send fewer or shorter texts.",
                    param=param,
                    code="too_many_pieces",
                )
            plan.texts.append(PlannedText(document, language, detection, slots))
        return plan

    def _check_options(self, request: TranslateRequest, is_batch: bool) -> None:
        check_max_tokens(request.max_tokens, self.limits.max_tokens, "max_tokens")
        if request.stream and is_batch:
            raise InvalidRequestError("Streaming takes a single text, not a list.", param="stream")
        if request.stream and request.alternatives:
            raise InvalidRequestError("Alternatives are not streamed.", param="alternatives")
        if request.stream and request.candidates > 1:
            # A stream's text is sent as it is written: there is nothing to choose from.
            raise InvalidRequestError("Candidates are not streamed.", param="candidates")
        if request.stream and request.min_quality is not None:
            raise InvalidRequestError(
                "A stream is not translated again: `min_quality` needs `stream: false`.",
                param="min_quality",
            )

    def _instructions(self, request: TranslateRequest) -> tuple[str, ...]:
        # The wire's own limits are checked where it is decoded; this bounds a prompt.
        instructions = validate_instructions(
            request.instructions,
            "instructions",
            limit=MAX_PROMPT_INSTRUCTIONS,
            max_chars=MAX_PROMPT_INSTRUCTION_CHARS,
        )
        if instructions:
            refuse_on_base_model(self.model_name, self.follows_instructions, "instructions")
        return instructions

    def _split(self, text: str, request: TranslateRequest) -> Document:
        """A text's pieces by characters (HTML and XML: its text nodes)."""
        max_chars = piece_chars(self.max_model_len, self.piece_tokens)
        if request.format == "text":
            document = split_document(text, max_chars)
        else:
            document = parse_html(
                text,
                max_chars,
                xml=request.format == "xml",
                ignore_tags=tuple(request.ignore_tags or ()),
            )
        # Few-shot completion prompts answer one line: each line is its own piece.
        return split_lines(document) if self.line_by_line else document

    def _detect(
        self, document: Document, detect: bool, target: Language, param: str, index: int | None
    ) -> Detection | None:
        if not detect:
            return None
        if document.pieces:
            return self.detection.detect(" ".join(document.pieces), param, index)
        # Markup alone: nothing to translate, nothing to detect. It comes back as it is,
        # which is its "translation" into the target; confidence 0 says so.
        return Detection(language=target, confidence=0.0)

    def _target_notices(self, target: Language) -> tuple[str, ...]:
        if self.support(target.tag) != "unsupported":
            return ()
        if self.refuse_unsupported:
            raise InvalidRequestError(
                f"The served model {self.model_name} does not write {target.name}: measured, "
                "its answers are mostly in another language.",
                param="target_lang",
                code="unsupported_target_language",
            )
        return (UNSUPPORTED_TARGET,)

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
            param = text_param(is_batch, i)
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


def piece_chars(max_model_len: int, piece_tokens: int = MAX_PIECE_TOKENS) -> int:
    budget = min(piece_tokens, (max_model_len - PROMPT_ALLOWANCE) // 4)
    return max(16, CHARS_PER_TOKEN * budget)


def text_param(is_batch: bool, index: int) -> str:
    return f"text[{index}]" if is_batch else "text"


class _PieceKeys:
    """The cache key of each piece, and the plan's pieces deduplicated by it: everything that
    shapes a piece's prompt and sampling is in its key."""

    def __init__(
        self,
        model_name: str,
        request: TranslateRequest,
        target: Language,
        glossary: dict[str, str],
        instructions: tuple[str, ...],
        memory: Hashable,
    ) -> None:
        self.model_name = model_name
        self.request = request
        self.target = target
        self.glossary = glossary
        self.instructions = instructions
        self.memory = memory
        # A repeated piece is looked up once (per set of stored terms: its language's).
        self._entries_of: dict[tuple[str, int], dict[str, str]] = {}

    def piece(
        self,
        plan: Plan,
        text: str,
        language: Language,
        adapter: LoraAdapter | None,
        param: str,
        stored: StoredTerms | None = None,
    ) -> Hashable:
        """The piece's key, its piece added to the plan where it is new. Its glossary: the
        stored terms that occur in it, and the request's own, which win. The key holds the
        entries themselves, so an edited glossary is never answered from the cache."""
        entries = self._entries_of.get((text, id(stored)))
        if entries is None:
            entries = entries_in(text, self.glossary)
            if stored is not None:
                entries = {**stored.entries_in(text), **entries}
            self._entries_of[(text, id(stored))] = entries
            plan.glossary.update(entries)
        request = self.request
        # A translation made by one adapter (or one load of it) is never another's.
        model_key = self.model_name if adapter is None else (adapter.name, adapter.id)
        key = (
            model_key,
            language.tag,
            self.target.tag,
            tuple(entries.items()),
            request.formality,
            self.instructions,
            request.max_tokens,
            self.memory,
            request.context,
            request.candidates,  # the best of several answers is not the greedy one
            text,
        )
        if key not in plan.pieces:
            plan.pieces[key] = Piece(text, language, entries, key, param, None, adapter=adapter)
        return key
