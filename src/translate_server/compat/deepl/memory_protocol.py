"""DeepL's translation-memory API (`/v3/translation_memories...`) wire types, as the official
`deepl` client sends and reads them. Languages are lower-case tags, as in DeepL's other v3
APIs; times are ISO 8601 in UTC."""

from __future__ import annotations

import datetime
from typing import Annotated

import msgspec
from msgspec import Meta

from translate_server.memory.jobs import MemoryJob
from translate_server.memory.segments import Languages, Segment
from translate_server.memory.store import MemoryInfo
from translate_server.wire import RequestStruct, ResponseStruct


def timestamp(seconds: float) -> str:
    moment = datetime.datetime.fromtimestamp(seconds, datetime.UTC)
    return moment.isoformat(timespec="microseconds").replace("+00:00", "Z")


class SourceFile(RequestStruct, kw_only=True):
    file_name: Annotated[str, Meta(min_length=1, max_length=255)]
    content_length: Annotated[int, Meta(gt=0)]
    content_type: str | None = None


class ImportParameters(RequestStruct, kw_only=True):
    display_name: Annotated[str, Meta(min_length=1, max_length=200)] | None = None


class ImportRequest(RequestStruct, kw_only=True):
    source_file: SourceFile
    parameters: ImportParameters | None = None


class ImportCreated(ResponseStruct, kw_only=True):
    job_id: str
    upload_url: Annotated[str, Meta(description="PUT the file here (no API key needed).")]
    expires_at: str


class TranslationMemory(ResponseStruct, kw_only=True):
    translation_memory_id: str
    name: str
    source_language: str
    target_languages: list[str]
    segment_count: int
    creation_time: str
    updated_time: str

    @classmethod
    def of(cls, info: MemoryInfo, languages: Languages) -> TranslationMemory:
        return cls(
            translation_memory_id=info.id,
            name=info.name,
            source_language=languages.source,
            target_languages=languages.targets,
            segment_count=info.entries,
            creation_time=timestamp(info.created),
            updated_time=timestamp(info.updated),
        )


class TranslationMemories(ResponseStruct, kw_only=True):
    translation_memories: list[TranslationMemory]
    total_count: int


class TargetSegment(ResponseStruct, kw_only=True):
    target_segment_id: str
    target_language: str
    target_text: str


class SourceSegment(ResponseStruct, kw_only=True):
    source_segment_id: str
    source_text: str
    targets: list[TargetSegment]

    @classmethod
    def of(cls, segment: Segment) -> SourceSegment:
        return cls(
            source_segment_id=f"seg_{segment.first}",
            source_text=segment.source,
            targets=[
                TargetSegment(
                    target_segment_id=f"tgt_{target.entry}",
                    target_language=target.language,
                    target_text=target.text,
                )
                for target in segment.targets
            ],
        )


class SegmentsPage(ResponseStruct, kw_only=True):
    segments: list[SourceSegment]
    segment_count: Annotated[int, Meta(description="Segments of the memory, filter or not.")]
    next_page_cursor: str | None = None


class StatusMetadata(ResponseStruct, kw_only=True):
    required_action: str | None = None


class JobError(ResponseStruct, kw_only=True):
    message: str


class JobResult(ResponseStruct, kw_only=True):
    status: str
    status_metadata: StatusMetadata | None = None
    download_url: str | None = None
    expires_at: str | None = None
    error: JobError | None = None
    translation_memory_id: str | None = None
    skipped_segment_count: int | None = None


class JobParameters(ResponseStruct, kw_only=True):
    translation_memory_id: str | None = None
    display_name: str | None = None


class JobSourceFile(ResponseStruct, kw_only=True):
    file_name: str | None = None
    content_type: str | None = None
    content_length: int | None = None


class JobStatusBody(ResponseStruct, kw_only=True):
    job_id: str
    operation: str
    product: str = "translation_memory"
    creation_time: str
    updated_time: str
    parameters: JobParameters
    source_file: JobSourceFile | None = None
    results: list[JobResult]

    @classmethod
    def of(cls, job: MemoryJob, base_url: str) -> JobStatusBody:
        """`base_url`: where the job's upload and download URLs live."""
        result = JobResult(status=job.status)
        if job.status == "awaiting_input":
            result = JobResult(
                status=job.status,
                status_metadata=StatusMetadata(
                    required_action=f"Upload the file with PUT to {upload_url(base_url, job)}"
                ),
                expires_at=timestamp(job.expires),
            )
        elif job.status == "failed":
            result = JobResult(status=job.status, error=JobError(message=job.error or "failed"))
        elif job.operation == "import" and job.status == "completed":
            result = JobResult(
                status=job.status,
                translation_memory_id=job.memory,
                skipped_segment_count=job.skipped or 0,
            )
        elif job.operation == "export" and job.status == "completed":
            result = JobResult(
                status=job.status,
                download_url=download_url(base_url, job),
                expires_at=timestamp(job.expires),
            )
        source = None
        if job.operation == "import":
            source = JobSourceFile(
                file_name=job.file_name,
                content_type=job.content_type,
                content_length=job.content_length,
            )
        return cls(
            job_id=job.job_id,
            operation=job.operation,
            creation_time=timestamp(job.created),
            updated_time=timestamp(job.updated),
            parameters=JobParameters(
                translation_memory_id=job.memory if job.operation == "export" else None,
                display_name=job.display_name,
            ),
            source_file=source,
            results=[result],
        )


class ExportCreated(ResponseStruct, kw_only=True):
    job_id: str
    parameters: JobParameters


UPLOADS = "/v3/translation_memories/uploads"
DOWNLOADS = "/v3/translation_memories/downloads"


def upload_url(base_url: str, job: MemoryJob) -> str:
    return f"{base_url}{UPLOADS}/{job.token}"


def download_url(base_url: str, job: MemoryJob) -> str:
    return f"{base_url}{DOWNLOADS}/{job.token}"


def cursor(after: int) -> str:
    """An opaque page cursor: the row a page starts after, encoded."""
    return msgspec.json.encode({"after": after}).hex()


def read_cursor(text: str) -> int | None:
    try:
        return int(msgspec.json.decode(bytes.fromhex(text), type=dict[str, int])["after"])
    except (ValueError, KeyError, msgspec.DecodeError):
        return None
