"""A translated segment as a row of the jobs' database (`document_translations`): its text,
estimate and review flag as columns, its warnings, memory match and review as JSON."""

from __future__ import annotations

from typing import Any

import msgspec
from sqlalchemy import Connection, select

from translate_server.documents.job import NO_DETAILS, SegmentDetails, SegmentTranslation
from translate_server.storage.job_tables import document_translations

# A translated segment's columns, in `SegmentTranslation`'s order.
SEGMENT_COLUMNS = ("text", "estimate", "needs_review", "details")
_DETAILS = msgspec.json.Decoder(SegmentDetails)


def segment_row(job_id: str, index: int, found: SegmentTranslation) -> dict[str, Any]:
    details = None if found.details == NO_DETAILS else msgspec.json.encode(found.details).decode()
    return {
        "job_id": job_id,
        "idx": index,
        "text": found.text,
        "estimate": found.estimate,
        "needs_review": found.needs_review,
        "details": details,
    }


def translations(c: Connection, job_id: str) -> dict[int, SegmentTranslation]:
    t = document_translations.c
    query = select(t.idx, *(t[name] for name in SEGMENT_COLUMNS)).where(t.job_id == job_id)
    return {
        int(index): SegmentTranslation(
            text, estimate, bool(needs), NO_DETAILS if details is None else _DETAILS.decode(details)
        )
        for index, text, estimate, needs, details in c.execute(query)
    }
