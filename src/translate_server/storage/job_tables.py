"""The document jobs' tables: a job's record, its translated pieces (kept once it is done, for
its review), and its files (the upload, and the result once done: at most --max-document-bytes
each) kept in the database, so that whichever replica serves a request can read them."""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Double,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    Table,
    Text,
)

metadata = MetaData()

document_jobs = Table(
    "document_jobs",
    metadata,
    Column("id", Text, primary_key=True),
    Column("key_digest", LargeBinary, nullable=False),
    Column("owner", Text, nullable=False),  # `owners.SHARED` where no API keys are configured
    Column("status", Text, nullable=False),
    Column("format", Text, nullable=False),
    Column("filename", Text),
    Column("source_lang", Text),
    Column("target_lang", Text, nullable=False),
    Column("options", Text, nullable=False),  # JSON
    Column("billed_characters", Integer, nullable=False),
    Column("billed_to", Text),
    Column("segments_total", Integer, nullable=False),
    Column("segments_done", Integer, nullable=False, server_default="0"),
    Column("segments_at_start", Integer, nullable=False, server_default="0"),
    Column("created_at", Double, nullable=False),
    Column("updated_at", Double, nullable=False),
    Column("started_at", Double),
    Column("finished_at", Double),
    Column("error", Text),
    # Which server runs the job, and until when its claim holds (unused by one server).
    Column("claimed_by", Text),
    Column("lease_until", Double),
    # Once done: how many segments need review, and the first of them (JSON).
    Column("needs_review", Integer),
    Column("review", Text),
    Index("document_jobs_status", "status"),
    Index("document_jobs_owner", "owner"),
)

document_translations = Table(
    "document_translations",
    metadata,
    Column("job_id", Text, ForeignKey("document_jobs.id", ondelete="CASCADE"), nullable=False),
    Column("idx", Integer, nullable=False),
    Column("text", Text, nullable=False),
    # The translation's quality estimate (none for a segment kept as it was), and its verdict.
    Column("estimate", Double),
    Column("needs_review", Boolean),
    # Its warnings, memory match and review (`job.SegmentDetails`, JSON); NULL: none.
    Column("details", Text),
    PrimaryKeyConstraint("job_id", "idx"),
)

document_files = Table(
    "document_files",
    metadata,
    Column("job_id", Text, ForeignKey("document_jobs.id", ondelete="CASCADE"), nullable=False),
    Column("kind", Text, nullable=False),  # "source" or "result"
    Column("data", LargeBinary, nullable=False),
    PrimaryKeyConstraint("job_id", "kind"),
)

# OpenAI's Files and Batches (`batches`): a batch runs as a job of the queue above (its
# `format` is the batch kind, its lines' results are its `document_translations` rows while it
# runs); these keep what OpenAI's objects say, which outlives the job's retention.
openai_files = Table(
    "openai_files",
    metadata,
    Column("id", Text, primary_key=True),
    Column("owner", Text, nullable=False),  # `owners.SHARED` where no API keys are configured
    Column("purpose", Text, nullable=False),  # "batch", or "batch_output" for what a batch wrote
    Column("filename", Text, nullable=False),
    Column("bytes", Integer, nullable=False),
    Column("lines", Integer, nullable=False),
    Column("created_at", Double, nullable=False),
    Column("data", LargeBinary, nullable=False),
    Index("openai_files_owner", "owner", "created_at"),
)

openai_batches = Table(
    "openai_batches",
    metadata,
    Column("id", Text, primary_key=True),
    Column("job_id", Text),  # its job on the queue (None for a batch failed at validation)
    Column("owner", Text, nullable=False),
    Column("endpoint", Text, nullable=False),
    Column("input_file_id", Text, nullable=False),
    Column("completion_window", Text, nullable=False),
    Column("metadata", Text),  # JSON
    # validating, in_progress, cancelling, then completed, failed, cancelled or expired; while
    # it runs, `finalizing` and the counts are read from its job.
    Column("status", Text, nullable=False),
    Column("total", Integer, nullable=False),
    Column("completed", Integer, nullable=False, server_default="0"),
    Column("failed", Integer, nullable=False, server_default="0"),
    Column("output_file_id", Text),
    Column("error_file_id", Text),
    Column("errors", Text),  # JSON: validation's errors of a failed batch
    Column("usage", Text),  # JSON: the tokens of its lines, once finished
    Column("created_at", Double, nullable=False),
    Column("expires_at", Double, nullable=False),
    Column("in_progress_at", Double),
    Column("finalizing_at", Double),
    Column("completed_at", Double),
    Column("failed_at", Double),
    Column("cancelling_at", Double),
    Column("cancelled_at", Double),
    Column("expired_at", Double),
    Index("openai_batches_owner", "owner", "created_at"),
    Index("openai_batches_job", "job_id"),
)
