"""Wire types of the document routes: ours, DeepL's and LibreTranslate's."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec
from msgspec import Meta

from translate_server.documents.job import ReviewItem, SegmentTranslation
from translate_server.memory.entry_protocol import CorrectionObject
from translate_server.wire import RequestStruct

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


class DocumentSegment(msgspec.Struct, kw_only=True):
    """One segment of a finished job, for its review."""

    index: Annotated[int, Meta(description="Its place among the file's segments, from 0.")]
    source: str
    translation: str
    estimate: Annotated[
        float | None, Meta(description="The translation's quality estimate, 0..1 (null: none).")
    ]
    needs_review: Annotated[
        bool,
        Meta(
            description="Its translation needs a person's review (the file marks it so where "
            "its format can); approving it clears this."
        ),
    ]
    warnings: Annotated[
        list[str], Meta(description="What the quality guard found wrong, as on /translate.")
    ]
    memory_match: Annotated[
        dict[str, Any] | None,
        Meta(description="How it matched the job's translation memory, as on /translate."),
    ]
    edited: Annotated[bool, Meta(description="A person changed the machine's translation.")]
    machine_translation: Annotated[
        str | None, Meta(description="The machine's translation, where a person edited it.")
    ]
    approved: Annotated[bool, Meta(description="A person approved the translation.")]

    @classmethod
    def of(cls, index: int, source: str, found: SegmentTranslation) -> DocumentSegment:
        details = found.details
        return cls(
            index=index,
            source=source,
            translation=found.text,
            estimate=found.estimate,
            needs_review=found.needs_review,
            warnings=list(details.warnings),
            memory_match=details.memory_match,
            edited=details.machine is not None,
            machine_translation=details.machine,
            approved=details.approved,
        )


class DocumentSegments(msgspec.Struct, kw_only=True):
    object: Literal["list"] = "list"
    document_id: str
    filename: str | None
    source_lang: str | None
    target_lang: str
    needs_review: Annotated[int, Meta(description="How many segments need review now.")]
    data: Annotated[list[DocumentSegment], Meta(description="Every segment, in the file's order.")]


class SegmentPatch(RequestStruct, kw_only=True):
    translation: (
        Annotated[
            str,
            Meta(
                max_length=20_000,
                description="The segment's new translation (the file's result is rebuilt with it).",
            ),
        ]
        | None
    ) = None
    approved: Annotated[
        bool | None,
        Meta(
            description="true: a person approved it (its review flag cleared: PO without "
            "`#, fuzzy`, XLIFF `translated`); false: marked as needing review again."
        ),
    ] = None
    memory: Annotated[
        str | None,
        Meta(
            description="A translation memory to save the segment's translation into as a "
            "correction (as /translate/corrections does)."
        ),
    ] = None
    source_lang: Annotated[
        str | None,
        Meta(
            description="The source's language for the correction, where the job's was "
            "detected (default: the job's `source_lang`)."
        ),
    ] = None


class SegmentEdited(msgspec.Struct, kw_only=True):
    segment: DocumentSegment
    needs_review: Annotated[int, Meta(description="How many segments need review now.")]
    correction: Annotated[
        CorrectionObject | None,
        Meta(description="The correction saved into `memory`, where one was named."),
    ] = None


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
