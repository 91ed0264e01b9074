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
