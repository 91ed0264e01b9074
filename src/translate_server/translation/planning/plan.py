"""A planned /translate request: its texts, their unique pieces (each one engine request's
worth, with its cache and memory lookups) and their results, and the `Job` every engine request
of it shares. `planner.Planner` makes the plan; the service translates its pieces.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

import msgspec

from translate_server.inference.engine import LoraAdapter
from translate_server.observability.record import RequestRecord
from translate_server.text.detection import Detection
from translate_server.text.languages import Language
from translate_server.translation.estimate.model import TextEstimate
from translate_server.translation.estimate.signals import AnswerSignals, memory_signals
from translate_server.translation.planning.cache import CachedTranslation
from translate_server.translation.planning.ports import FoundInMemory
from translate_server.translation.protocol import TranslateRequest
from translate_server.translation.segmentation.segments import Document

# Pieces whose engine requests are started in one turn of the event loop: tasks created
# together take their first steps (rendering, tokenizing, submitting) in the same turn.
FAN_OUT_SLICE = 16


class PieceResult(msgspec.Struct, frozen=True):
    text: str
    finish_reason: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    # Sampled further translations, when the request asked for alternatives.
    alternatives: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()  # what the guard found still wrong (guard.py)
    # What its quality estimate is made from: one per engine answer (a piece split again has
    # one per part); none where nothing is known (a piece the deadline left untranslated).
    signals: tuple[AnswerSignals, ...] = ()


@dataclass
class Piece:
    """One unique engine request's worth of text, in one language pair. `key` is its cache
    key (None for the parts of a piece split again after tokenizing: they are not cached)."""

    text: str
    source: Language
    glossary: dict[str, str]
    key: Hashable
    param: str
    cached: CachedTranslation | None
    # Its best match in the request's translation memory: an exact one answers it.
    found: FoundInMemory | None = None
    # The LoRA adapter that translates it (adapters/routing.py); None: the base model.
    adapter: LoraAdapter | None = None
    # Its result's quality estimate, where one was made for the cache: the answer of a text
    # of this piece alone, with the same warnings, is estimated the same.
    estimated: tuple[PieceResult, TextEstimate] | None = None

    @property
    def answered(self) -> bool:
        return self.cached is not None or (self.found is not None and self.found.exact is not None)

    @property
    def examples(self) -> tuple[tuple[str, str], ...]:
        """The memory's fuzzy matches the prompt shows, closest last."""
        return self.found.examples if self.found is not None else ()


@dataclass
class PlannedText:
    document: Document
    source: Language
    detection: Detection | None
    slots: list[Hashable]


@dataclass(frozen=True, slots=True)
class Job:
    """What every engine request of one /translate request shares."""

    target: Language
    request: TranslateRequest
    record: RequestRecord
    deadline: float
    instructions: tuple[str, ...] = ()  # the client's own, validated (prompts/instructions.py)

    def languages(self, piece: Piece) -> tuple[str, ...]:
        """The names a preamble before the piece's translation may mention."""
        return (piece.source.name, self.target.name)


@dataclass
class Plan:
    request: TranslateRequest
    is_batch: bool
    target: Language
    # The glossary entries that occur in its texts (the request's own, and its stored
    # glossaries' found by their indexes), filled as its pieces are planned.
    glossary: dict[str, str]
    texts: list[PlannedText]
    pieces: dict[Hashable, Piece]
    results: dict[Hashable, PieceResult] = field(default_factory=dict)
    notices: tuple[str, ...] = ()  # warnings known before translating, for every text
    # The texts' parts of at most `piece_tokens` each, before they were cut into sentences.
    spans: int = 0
    instructions: tuple[str, ...] = ()
    # The name of the model that translates each text: the base model's or an adapter's.
    models: list[str] = field(default_factory=list)
    # Whether the request gave a glossary (its own or a stored one): the answer says which
    # of its terms were applied, none included.
    glossary_given: bool = False

    @property
    def model(self) -> str:
        """The model that translated the request; the names, comma-separated, where the texts
        of one request went to different adapters."""
        return ",".join(dict.fromkeys(self.models))

    @property
    def misses(self) -> list[Piece]:
        return [piece for piece in self.pieces.values() if not piece.answered]

    def weight(self, misses: int) -> int:
        """The admission weight of `misses` pieces: a paragraph cut into ten sentences asks
        the engine for about the work of the paragraph, not of ten paragraphs."""
        return min(misses, max(1, self.spans)) if misses else 0

    def take_cached(self) -> None:
        for key, piece in self.pieces.items():
            if piece.found is not None and piece.found.exact is not None:
                # The memory's translation wins over one the engine made.
                exact = piece.found.exact
                self.results[key] = PieceResult(
                    exact, "stop", signals=(memory_signals(piece.text, exact),)
                )
            elif piece.cached is not None:
                self.results[key] = PieceResult(
                    piece.cached.text, "stop", signals=piece.cached.signals
                )

    def job(self, record: RequestRecord, deadline: float) -> Job:
        return Job(self.target, self.request, record, deadline, self.instructions)


def is_auto(source_lang: str) -> bool:
    return source_lang.strip().lower() == "auto"
