"""The plain translation API: /translate, /detect and /languages."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from translate_server.translation.estimate.signals import AnswerSignals
from translate_server.wire import RequestStruct, ResponseStruct, Usage

# The longest context a request may give (characters): it is read with every piece's prompt.
CONTEXT_CHARS = 2000
# The least fuzzy-match score of a memory entry shown as an example, where none is asked.
MEMORY_THRESHOLD = 75.0
# The most answers a request may have the engine write per piece (`candidates`).
MAX_CANDIDATES = 4

LanguageCode = Annotated[
    str,
    Meta(
        min_length=2,
        max_length=35,
        description="BCP-47 language tag, e.g. `en`, `de`, `pt-BR`, `zh-Hant`.",
        examples=["de"],
    ),
]
SourceLanguage = Annotated[
    str,
    Meta(
        min_length=2,
        max_length=35,
        description="BCP-47 language tag of the text, or `auto` (the default) to detect it.",
        examples=["en"],
    ),
]


# What the guard found still wrong with a translation it sends (docs/quality.md): one list
# of kinds for a text, one list per text for a list of texts.
Warnings = Annotated[
    list[str | list[str]],
    Meta(
        description="Only when something is wrong: what the quality guard still found wrong "
        "with the translation after its retry: `empty` (the source is sent back "
        "untranslated), `echo`, `wrong_language`, `placeholders_lost` (the lost "
        "ones are appended at the end). For a list of texts, one list per text."
    ),
]


# How far to trust each translation (translation/estimate, docs/quality.md): one value for a
# text, a list for a list of texts.
QualityEstimate = Annotated[
    float | list[float],
    Meta(
        description="How far to trust the translation, 0..1 (1.0: a translation memory's "
        "exact match): a model over the engine's own token probabilities, the quality "
        "guard's findings, the length against the language pair's and the detected "
        "language, calibrated on human translations. For a list of texts, one per text."
    ),
]
NeedsReview = Annotated[
    bool | list[bool],
    Meta(
        description="Whether a person should review the translation: its estimate is under "
        "the served model's threshold, or it has warnings. For a list of texts, one per text."
    ),
]


class QualitySignals(ResponseStruct, kw_only=True):
    """What a text's quality estimate was computed from (`quality_signals: true`)."""

    features: Annotated[
        dict[str, float | None],
        Meta(description="The estimate's inputs by name (null: not known for this text)."),
    ]
    answers: Annotated[
        list[AnswerSignals],
        Meta(description="Each engine answer's own signals (a piece, or a part of one)."),
    ]


class TranslateRequest(RequestStruct, kw_only=True):
    text: Annotated[
        str | list[str],
        Meta(
            description="A text, or a list of texts translated independently and concurrently. "
            "Long texts are split into pieces translated concurrently."
        ),
    ]
    target_lang: LanguageCode
    source_lang: SourceLanguage = "auto"
    format: Annotated[
        Literal["text", "html", "xml"],
        Meta(
            description="`html` or `xml`: translate text nodes, keep tags, attributes and "
            "structure."
        ),
    ] = "text"
    ignore_tags: (
        Annotated[
            list[str],
            Meta(max_length=64, description="Elements (html, xml) whose text is kept as it is."),
        ]
        | None
    ) = None
    glossary: (
        Annotated[
            dict[str, str],
            Meta(description='Required translations of terms: `{"source term": "translation"}`.'),
        ]
        | None
    ) = None
    glossary_id: (
        Annotated[
            str | Annotated[list[str], Meta(min_length=1, max_length=5)],
            Meta(
                description="A stored glossary's id (GET /glossaries; DeepL's glossaries too), "
                "or a list of up to 5 applied in order (an earlier one's term wins). Each text "
                "uses the glossary's dictionary for its source language (given or detected) "
                "and `target_lang`; with `source_lang` given, a glossary without that "
                "dictionary is a 400. Beside `glossary`, the request's own terms win."
            ),
        ]
        | None
    ) = None
    formality: Literal["default", "formal", "informal"] = "default"
    instructions: (
        Annotated[
            list[Annotated[str, Meta(min_length=1, max_length=300)]],
            Meta(
                max_length=10,
                description="How to write the translation, in plain words (tone, style, "
                "terms, formatting): at most 10 of 300 characters each. An instruction-tuned "
                "(chat) model only: on a base model a request with them is a 400 "
                "(`instructions_not_supported`).",
            ),
        ]
        | None
    ) = None
    stream: Annotated[
        bool,
        Meta(
            description="Send the translation as it is generated (server-sent events); "
            "a single text only."
        ),
    ] = False
    max_tokens: Annotated[int, Meta(ge=1, description="Per engine request (per piece).")] | None = (
        None
    )
    alternatives: Annotated[
        int,
        Meta(
            ge=0,
            le=3,
            description="Further translations of each text, sampled beside "
            "the greedy one (not with `stream`).",
        ),
    ] = 0
    model: (
        Annotated[
            str,
            Meta(
                description="The served model, or one of its LoRA adapters (GET /v1/models) "
                "to translate with it; by default the adapter serving the pair and "
                "`domain` best, else the base model."
            ),
        ]
        | None
    ) = None
    domain: (
        Annotated[
            str,
            Meta(
                max_length=64,
                description="The text's domain (e.g. `ui`, `legal`): an adapter that "
                "declares it (`domain=ui`) is preferred to one that serves only the pair.",
            ),
        ]
        | None
    ) = None
    timeout: Annotated[float, Meta(gt=0.0)] | None = None
    context: (
        Annotated[
            str,
            Meta(
                max_length=CONTEXT_CHARS,
                description="Text around the text to translate (what comes before and after, "
                "what it is for), shown to the model for its meaning only: it is not "
                "translated, answered or billed.",
            ),
        ]
        | None
    ) = None
    memory: (
        Annotated[
            str,
            Meta(
                description="A translation memory's id (POST /memories). Each piece of the "
                "text (a sentence, a line or a text node) found in it exactly "
                "is answered from it; its close matches are shown to the model "
                "as examples."
            ),
        ]
        | None
    ) = None
    memory_threshold: Annotated[
        float,
        Meta(
            ge=0,
            le=100,
            description="The least fuzzy-match score (0-100, a "
            "character-level similarity of the sources) of "
            "a memory entry shown as an example.",
        ),
    ] = MEMORY_THRESHOLD
    candidates: Annotated[
        int,
        Meta(
            ge=1,
            le=MAX_CANDIDATES,
            description="Answers the engine writes for each piece of the text: the greedy one "
            "and sampled ones beside it; the best estimated (after the quality guard's "
            "verdict) is returned. Each costs about one more generation (not with `stream`).",
        ),
    ] = 1
    min_quality: (
        Annotated[
            float,
            Meta(
                ge=0,
                le=1,
                description="The least quality estimate wanted: each piece estimated below it "
                "is translated once more (a sentence at a time, or sampled with other "
                "settings) and the better estimated answer kept (not with `stream`).",
            ),
        ]
        | None
    ) = None
    quality_signals: Annotated[
        bool,
        Meta(
            description="Also return what each text's quality estimate was computed from "
            "(`quality_signals`): for calibrating the estimate on your own translations."
        ),
    ] = False


class MemoryMatch(ResponseStruct, kw_only=True):
    """How a text's pieces matched the request's translation memory."""

    match: Annotated[
        Literal["exact", "fuzzy"],
        Meta(
            description="`exact`: every piece of the text was answered from the memory, the "
            "engine asked nothing; `fuzzy`: some pieces matched (exactly, or closely "
            "enough to be shown to the model as examples)"
        ),
    ]
    score: Annotated[
        float,
        Meta(
            description="The best match's score among the text's pieces (100 for an exact match)."
        ),
    ]
    pieces: Annotated[int, Meta(description="The text's pieces.")]
    exact: Annotated[int, Meta(description="Pieces answered from the memory.")]
    fuzzy: Annotated[
        int, Meta(description="Pieces translated with the memory's matches as examples.")
    ]


class DetectedLanguage(ResponseStruct, kw_only=True):
    language: str
    confidence: float


class TranslateResponse(ResponseStruct, kw_only=True):
    translation: str | None = None
    translations: list[str] | None = None
    # "stop" when the translation ended by itself, "length" when max_tokens cut it short.
    finish_reason: str | None = None
    finish_reasons: list[str] | None = None
    source_lang: str
    target_lang: str
    # When `source_lang` was `auto`: what was detected, for the text or for each text.
    detected_source_lang: DetectedLanguage | None = None
    detected_source_langs: list[DetectedLanguage] | None = None
    # Glossary terms found in the source whose required translation is in the translation.
    glossary_applied: list[str] | None = None
    # With `alternatives`: each text's further translations.
    alternatives: list[list[str]] | None = None
    warnings: Warnings | None = None
    quality_estimate: QualityEstimate | None = None
    needs_review: NeedsReview | None = None
    # With `quality_signals`: what each estimate was computed from.
    quality_signals: QualitySignals | list[QualitySignals] | None = None
    # With `memory`: how the text (or each text, null where none of its pieces matched)
    # matched the memory.
    memory_match: MemoryMatch | None = None
    memory_matches: list[MemoryMatch | None] | None = None
    # The model that translated: the base model or the LoRA adapter chosen.
    model: str
    usage: Usage


class TranslateChunk(ResponseStruct, kw_only=True):
    """One server-sent event of a streamed translation; the last one has `finish_reason`,
    the detection, the glossary terms applied, the quality estimate and the usage."""

    delta: str
    finish_reason: str | None = None
    source_lang: str | None = None
    detected_source_lang: DetectedLanguage | None = None
    glossary_applied: list[str] | None = None
    warnings: (
        Annotated[
            list[str],
            Meta(
                description="What the quality guard found wrong with the translation sent "
                "(a stream is checked when it ends, never retried)."
            ),
        ]
        | None
    ) = None
    quality_estimate: (
        Annotated[
            float,
            Meta(description="How far to trust the translation sent, 0..1 (as `/translate`'s)."),
        ]
        | None
    ) = None
    needs_review: bool | None = None
    # With `memory`: how the text matched it.
    memory_match: MemoryMatch | None = None
    usage: Usage | None = None


class DetectRequest(RequestStruct, kw_only=True):
    text: Annotated[str, Meta(min_length=1)]
    max_candidates: Annotated[int, Meta(ge=1, le=10)] = 3


class DetectResponse(ResponseStruct, kw_only=True):
    language: str
    confidence: float
    name: str
    candidates: list[DetectedLanguage]


class LanguageInfo(ResponseStruct, kw_only=True):
    code: str
    name: str
    # How well the served model writes it as a target, measured (docs/quality.md):
    # "supported", "weak" or "unsupported"; absent where it was not measured.
    support: str | None = None


class LanguagesResponse(ResponseStruct, kw_only=True):
    # Languages the detector recognises; translation takes any BCP-47 tag the model knows.
    languages: list[LanguageInfo]
