"""A finished job's review: its segments beside their sources, and a person's edit or approval
of one, after which the result is rebuilt from the source file with every translation as it
stands now (so a catalog's `#, fuzzy` or XLIFF's review state follows the segment's flag).

The translations are the job's own rows (kept once it is done); the sources are extracted
again from its source file, as the run did. An edit reads every segment, rebuilds, and writes
the segments and the result in one transaction that first checks the segments are still what
it read (`ReviewChangedError`): two edits at once, on one server or two, never lose each other.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import msgspec

from translate_server.documents.formats import Extracted, extract, format_named
from translate_server.documents.formats.base import SegmentReview
from translate_server.documents.job import REVIEW_ITEMS, DocumentOptions, Job, SegmentTranslation
from translate_server.documents.job_translation import format_options, review_item
from translate_server.documents.runner import DocumentJobs
from translate_server.documents.store import ReviewChangedError
from translate_server.errors import DocumentNotFoundError, DocumentNotReadyError

# Edits that keep coming between a review's read and its write: tried this often.
_ATTEMPTS = 5


@dataclass(frozen=True)
class Reviewed:
    """A finished job's segments: their sources and their translations, in the file's order."""

    job: Job
    sources: list[str]
    translations: list[SegmentTranslation]

    @property
    def needs_review(self) -> int:
        return sum(found.needs_review for found in self.translations)


async def reviewed(jobs: DocumentJobs, job_id: str, key: str, owner: str | None) -> Reviewed:
    """The job's segments, when it is done (409 before), read with its key."""
    job = await jobs.status(job_id, key, owner)
    found, _ = await _read(jobs, job)
    return found


async def edit(
    jobs: DocumentJobs, job: Job, index: int, text: str | None, approved: bool | None
) -> Reviewed:
    """Segment `index` given `text` and/or approved (or flagged again), the result rebuilt;
    the segments as they are now."""
    for attempt in range(_ATTEMPTS):
        now, extracted = await _read(jobs, job)
        segment(now, index)
        changed = list(now.translations)
        changed[index] = _changed(changed[index], text, approved)
        result = await asyncio.to_thread(
            extracted.rebuild_reviewed,
            [found.text for found in changed],
            [SegmentReview(found.estimate, found.needs_review) for found in changed],
        )
        flagged = [i for i, found in enumerate(changed) if found.needs_review]
        report = [review_item(i, now.sources[i], changed[i]) for i in flagged[:REVIEW_ITEMS]]
        try:
            done = await jobs.store.review(
                job.id,
                dict(enumerate(now.translations)),
                dict(enumerate(changed)),
                result,
                report,
                len(flagged),
            )
        except ReviewChangedError:
            if attempt == _ATTEMPTS - 1:
                raise
            continue
        return Reviewed(done, now.sources, changed)
    raise AssertionError("unreachable")


def segment(found: Reviewed, index: int) -> tuple[str, SegmentTranslation]:
    """Segment `index`'s source and translation; the 404 where the file has no such segment."""
    if not 0 <= index < len(found.sources):
        raise DocumentNotFoundError(
            f"The document has {len(found.sources)} segments, numbered from 0: "
            f"there is no segment {index}.",
            param="segment",
        )
    return found.sources[index], found.translations[index]


def _changed(
    found: SegmentTranslation, text: str | None, approved: bool | None
) -> SegmentTranslation:
    details = found.details
    if text is not None and text != found.text:
        machine = found.text if details.machine is None else details.machine
        details = msgspec.structs.replace(details, machine=machine)
        found = msgspec.structs.replace(found, text=text)
    if approved is not None:
        details = msgspec.structs.replace(details, approved=approved)
        found = msgspec.structs.replace(found, needs_review=not approved)
    return msgspec.structs.replace(found, details=details)


async def _read(jobs: DocumentJobs, job: Job) -> tuple[Reviewed, Extracted]:
    if job.status != "done":
        raise DocumentNotReadyError(
            f"The document is not translated yet ({job.status}): its segments are reviewed "
            "once it is done.",
            param="document_id",
        )
    store = jobs.store
    data = await store.read_source(job)
    options = msgspec.convert(job.options, DocumentOptions)
    extracted = await asyncio.to_thread(
        extract, format_named(job.format), data, format_options(job.target_lang, options)
    )
    translations = await store.translations(job.id)
    if len(translations) < len(extracted.segments):
        raise DocumentNotReadyError(
            "This document was translated before its segments were kept for review: "
            "translate it again to review it.",
            param="document_id",
        )
    ordered = [translations[i] for i in range(len(extracted.segments))]
    return Reviewed(job, list(extracted.segments), ordered), extracted
