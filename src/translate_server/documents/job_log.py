"""A document job's log line: its summary, and the failure it ended with."""

from __future__ import annotations

import time

from translate_server.documents.job import Job
from translate_server.documents.job_translation import Timings


def cause(exc: Exception) -> Exception:
    """The first failure inside a task group's exception group."""
    while isinstance(exc, ExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def summary(job: Job, timings: Timings) -> dict[str, object]:
    return {
        "document_id": job.id,
        "status": job.status,
        "format": job.format,
        "target_lang": job.target_lang,
        "segments": job.segments_total,
        "billed_characters": job.billed_characters,
        "error": job.error,
        "total_s": round(time.perf_counter() - timings.start, 4),
        **{f"{phase}_s": seconds for phase, seconds in timings.phases.items()},
    }
