"""Corrections: a machine translation fixed by a person, its corrected pair kept in a memory
at once (the same request then finds it as an exact match), and the correction counted.

What a correction did goes into its request's record (`CorrectionFindings`: the pair, whether
the text was changed or confirmed, how much of it was kept), so the log line says it and
`CorrectionMetrics` counts it by language pair: against the pair's translations, the
correction rate of a model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram
from rapidfuzz import fuzz

from translate_server.errors import InvalidRequestError
from translate_server.memory.entries import collapse, language_key
from translate_server.memory.entry_protocol import (
    CorrectionObject,
    CorrectionRequest,
    MemoryEntryObject,
)
from translate_server.memory.protocol import MemoryObject
from translate_server.memory.service import Memories
from translate_server.observability.record import RequestRecord


class CorrectionFindings:
    """A correction's part of its request's record."""

    __slots__ = ("kind", "memory", "similarity", "source_lang", "target_lang")

    def __init__(self) -> None:
        self.kind: str | None = None  # "edited" or "confirmed"
        self.memory = ""
        self.source_lang = ""
        self.target_lang = ""
        self.similarity = 0.0

    def fields(self) -> dict[str, Any]:
        if self.kind is None:
            return {}
        return {
            "correction": self.kind,
            "correction_source_lang": self.source_lang,
            "correction_target_lang": self.target_lang,
            "correction_similarity": self.similarity,
            "correction_memory": self.memory,
        }


class CorrectionMetrics:
    """Corrections counted from their requests' rendered fields."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.corrections = Counter(
            "translate_corrections",
            "Machine translations sent back corrected, by language pair and kind: `edited` (the "
            "text was changed) or `confirmed` (kept as it was).",
            ["source_lang", "target_lang", "kind"],
            registry=registry,
        )
        self.similarity = Histogram(
            "translate_correction_similarity",
            "How much of the machine's translation an edited correction kept (0-100).",
            buckets=(25, 50, 75, 90, 95, 99, 100),
            registry=registry,
        )

    def observe(self, route: str, fields: Mapping[str, Any]) -> None:
        kind = fields.get("correction")
        if kind is None or fields.get("status", 200) >= 400:
            return
        pair = fields["correction_source_lang"], fields["correction_target_lang"]
        self.corrections.labels(*pair, kind).inc()
        if kind == "edited":
            self.similarity.observe(fields["correction_similarity"])


async def correct(
    memories: Memories, owner: str, body: CorrectionRequest, record: RequestRecord
) -> CorrectionObject:
    """The corrected pair kept in the owner's memory `body.memory` (a 404 for an unknown one
    or another key's), and the correction noted in the request's record."""
    if body.source_lang.strip().lower() == "auto":
        raise InvalidRequestError(
            "Name the source's language (the one detected for it), not `auto`.",
            param="source_lang",
        )
    if not collapse(body.corrected):
        raise InvalidRequestError("`corrected` is blank.", param="corrected")
    info, stored, created = await memories.entries.add(owner, body.memory, body.entry(), "memory")
    changed = collapse(body.translation) != collapse(body.corrected)
    similarity = round(fuzz.ratio(body.translation, body.corrected), 1)
    findings = record.part(CorrectionFindings)
    findings.kind = "edited" if changed else "confirmed"
    findings.memory = info.id
    findings.source_lang = language_key(stored.source_lang)
    findings.target_lang = language_key(stored.target_lang)
    findings.similarity = similarity
    return CorrectionObject(
        memory=MemoryObject.of(info),
        entry=MemoryEntryObject.of(info, stored),
        created=created,
        changed=changed,
        similarity=similarity,
    )
