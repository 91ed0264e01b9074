"""Wire types of the document routes: ours, DeepL's and LibreTranslate's."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import msgspec

from translate_server.documents.job import ReviewItem

if TYPE_CHECKING:
    from translate_server.documents.job import Job


class DocumentSubmitted(msgspec.Struct, kw_only=True):
    document_id: str
    document_key: str
    status: str
    status_url: str
    result_url: str
    events_url: str


class DocumentStatus(msgspec.Struct, kw_only=True):
    document_id: str
    status: str  # queued, translating, done, error
    format: str
    filename: str | None
    source_lang: str | None
    target_lang: str
    segments_total: int
    segments_done: int
    billed_characters: int
    seconds_remaining: float | None
    error_message: str | None
    # Once done: how many segments' translations need review (their quality estimate is low,
    # or they have warnings), and the first of them, in the file's order.
    needs_review: int | None = None
    review: list[ReviewItem] | None = None

    @classmethod
    def of(cls, job: Job) -> DocumentStatus:
        remaining = job.seconds_remaining(time.time())
        return cls(
            document_id=job.id,
            status=job.status,
            format=job.format,
            filename=job.filename,
            source_lang=job.source_lang,
            target_lang=job.target_lang,
            segments_total=job.segments_total,
            segments_done=job.segments_done,
            billed_characters=job.billed_characters,
            seconds_remaining=None if remaining is None else round(remaining, 1),
            error_message=job.error,
            needs_review=job.needs_review,
            review=job.review,
        )


class DeepLDocumentHandle(msgspec.Struct, kw_only=True):
    document_id: str
    document_key: str


class DeepLDocumentKey(msgspec.Struct, kw_only=True):
    document_key: str


class DeepLDocumentStatus(msgspec.Struct, kw_only=True, omit_defaults=True):
    document_id: str
    status: str
    seconds_remaining: int | None = None
    billed_characters: int | None = None
    error_message: str | None = None

    @classmethod
    def of(cls, job: Job) -> DeepLDocumentStatus:
        remaining = job.seconds_remaining(time.time())
        return cls(
            document_id=job.id,
            status=job.status,
            # DeepL reports these while translating and once done, respectively.
            seconds_remaining=round(remaining)
            if remaining is not None and job.status == "translating"
            else None,
            billed_characters=job.billed_characters if job.status == "done" else None,
            error_message=job.error if job.status == "error" else None,
        )


class LibreFileTranslated(msgspec.Struct):
    translatedFileUrl: str
