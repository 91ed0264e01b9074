"""POST /translate/estimate: the quality estimate of translations made elsewhere (a person's,
a vendor's, another engine's), on the same scale as /translate's own."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from translate_server.translation.protocol import (
    LanguageCode,
    NeedsReview,
    QualityEstimate,
    QualitySignals,
    SourceLanguage,
    Warnings,
)
from translate_server.wire import RequestStruct, ResponseStruct, Usage

# The most pairs one request may score.
MAX_ESTIMATED = 100

Texts = Annotated[
    list[Annotated[str, Meta(min_length=1)]], Meta(min_length=1, max_length=MAX_ESTIMATED)
]


class EstimateRequest(RequestStruct, kw_only=True):
    source: Annotated[
        str | Texts,
        Meta(description="The source text, or a list of up to 100 source texts."),
    ]
    translation: Annotated[
        str | Texts,
        Meta(
            description="Its translation (one per source, in order) as someone else made it: "
            "scored as it is, never changed."
        ),
    ]
    target_lang: LanguageCode
    source_lang: SourceLanguage = "auto"
    quality_signals: Annotated[
        bool, Meta(description="Also return what each estimate was computed from.")
    ] = False


class EstimateResponse(ResponseStruct, kw_only=True):
    quality_estimate: QualityEstimate
    needs_review: NeedsReview
    warnings: Warnings | None = None
    quality_signals: QualitySignals | list[QualitySignals] | None = None
    source_lang: str
    target_lang: str
    # The model whose log probabilities scored them.
    model: str
    usage: Usage
