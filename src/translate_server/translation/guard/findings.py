"""What a translation adds to its request's record, and the metrics counted from it: the
quality guard's findings and the pieces matched in a translation memory.

`TranslationFindings` is the translation's part of the `RequestRecord` (filled by the guard in
`pieces` and by the memory look-up in `service`); its fields go into the one rendering of the
record, and `TranslationMetrics` counts them from there, beside the service's own metrics.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram

from translate_server.observability.record import RequestRecord


class TranslationFindings:
    """The guard's findings (failures of first answers, retries, what the answers sent still
    have) and the memory's matches (pieces answered from it, pieces whose prompt showed its
    fuzzy matches as examples)."""

    __slots__ = (
        "estimates",
        "failures",
        "improved",
        "memory_exact",
        "memory_fuzzy",
        "needs_review",
        "retries",
        "warnings",
    )

    def __init__(self) -> None:
        self.failures: list[str] = []
        self.retries = 0
        self.warnings: list[str] = []
        self.memory_exact = 0
        self.memory_fuzzy = 0
        # Each text's quality estimate, how many need review, and the pieces translated
        # again for a request's `min_quality`.
        self.estimates: list[float] = []
        self.needs_review: list[bool] = []
        self.improved = 0

    def estimated(self, estimate: float, needs_review: bool) -> None:
        self.estimates.append(estimate)
        self.needs_review.append(needs_review)

    def quality_checked(
        self, failures: tuple[str, ...], warnings: tuple[str, ...], retried: bool
    ) -> None:
        self.failures.extend(failures)
        self.warnings.extend(warnings)
        self.retries += retried

    def fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = {}
        if self.failures:
            fields["quality_failures"] = self.failures
            fields["quality_retries"] = self.retries
        if self.warnings:
            fields["warnings"] = self.warnings
        if self.memory_exact or self.memory_fuzzy:
            fields["memory_exact"] = self.memory_exact
            fields["memory_fuzzy"] = self.memory_fuzzy
        if self.estimates:
            fields["quality_estimates"] = self.estimates
            fields["needs_review"] = self.needs_review
        if self.improved:
            fields["quality_improved"] = self.improved
        return fields


# Buckets of the estimate's histogram: finer where texts are told apart (under 0.5).
ESTIMATE_BUCKETS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0)


def findings(record: RequestRecord) -> TranslationFindings:
    """The translation's part of a request's record."""
    return record.part(TranslationFindings)


class TranslationMetrics:
    """The guard's and the memories' counters, fed from a request's rendered fields."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.quality_failures = Counter(
            "translate_quality_failures",
            "Translation answers the guard found wrong, by kind (before its retry).",
            ["route", "kind"],
            registry=registry,
        )
        self.quality_retries = Counter(
            "translate_quality_retries",
            "Engine requests made again by the translation guard.",
            ["route"],
            registry=registry,
        )
        self.quality_warnings = Counter(
            "translate_quality_warnings",
            "Failures still in translations sent (the response's `warnings`), by kind.",
            ["route", "kind"],
            registry=registry,
        )
        self.estimates = Histogram(
            "translate_quality_estimate",
            "Each translated text's quality estimate (0..1), by whether it needs review.",
            ["route", "needs_review"],
            buckets=ESTIMATE_BUCKETS,
            registry=registry,
        )
        self.improved = Counter(
            "translate_quality_improved",
            "Pieces translated again because their estimate was under a request's `min_quality`.",
            ["route"],
            registry=registry,
        )
        self.memory_matches = Counter(
            "translate_memory_matches",
            "Pieces matched in a translation memory, by kind: "
            "`exact` (answered from it, no engine request) or `fuzzy` (its matches shown to the "
            "model as examples).",
            ["kind"],
            registry=registry,
        )

    def observe(self, route: str, fields: Mapping[str, Any]) -> None:
        # Rare (a failed answer, a memory named), so labelled children are looked up each time.
        for kind in fields.get("quality_failures", ()):
            self.quality_failures.labels(route, kind).inc()
        if retries := fields.get("quality_retries"):
            self.quality_retries.labels(route).inc(retries)
        for kind in fields.get("warnings", ()):
            self.quality_warnings.labels(route, kind).inc()
        if exact := fields.get("memory_exact"):
            self.memory_matches.labels("exact").inc(exact)
        if fuzzy := fields.get("memory_fuzzy"):
            self.memory_matches.labels("fuzzy").inc(fuzzy)
        for estimate, needs in zip(
            fields.get("quality_estimates", ()), fields.get("needs_review", ()), strict=True
        ):
            self.estimates.labels(route, "true" if needs else "false").observe(estimate)
        if improved := fields.get("quality_improved"):
            self.improved.labels(route).inc(improved)
