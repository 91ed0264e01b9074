"""The document jobs' tables; a folder from the release before versioned migrations adopted.

That release kept `jobs` and `translations` in `<document dir>/jobs.sqlite3` and each job's
files in `<document dir>/<job id>/` (`source`, and `result` once done). Here the tables are
`document_jobs` and `document_translations`, and the files rows of `document_files`, so every
replica reads them from the database; the folders are removed once this has committed.
A job made without API keys had no owner (NULL); its owner is now `owners.SHARED` ("").

Revision ID: 0001
Revises: -
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import op

from translate_server.storage.migrate import run_of_migration
from translate_server.storage.migrations.adopting import (
    columns,
    drop_set_aside,
    insert,
    rows,
    set_aside,
)

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

JOB = (
    "id", "key_digest", "owner", "status", "format", "filename", "source_lang", "target_lang",
    "options", "billed_characters", "billed_to", "segments_total", "segments_done",
    "segments_at_start", "created_at", "updated_at", "started_at", "finished_at", "error",
)  # fmt: skip
TEXTS = ("owner", "status", "format", "filename", "source_lang", "target_lang", "options")
TIMES = ("created_at", "updated_at", "started_at", "finished_at")


def upgrade() -> None:
    found = set_aside(("jobs", "translations"), indexes=("jobs_status",))
    jobs, translations, files = _create()
    if "jobs" in found:
        present = columns("jobs")
        listed = [name for name in JOB if name in present]
        if "result_path" in present:
            listed.append("result_path")
        adopted = list(rows("jobs", listed, "id", ""))
        insert(jobs, (_job(row) for row in adopted))
        insert(files, _files(adopted))
    if {"jobs", "translations"} <= found:
        insert(translations, _translations())
    drop_set_aside(found)


def _job(row: dict[str, Any]) -> dict[str, Any]:
    job = {name: row.get(name) for name in JOB}
    job["owner"] = job["owner"] or ""
    job["segments_done"] = job["segments_done"] or 0
    job["segments_at_start"] = job["segments_at_start"] or 0
    return job


def _files(jobs: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    run = run_of_migration()
    if run.document_dir is None:
        return
    for job in jobs:
        folder = run.document_dir / job["id"]
        stored = job.get("result_path")
        places = {
            "source": [folder / "source"],
            # Where the folder moved since, its own `result` rather than the path it recorded.
            "result": [folder / "result", *([Path(stored)] if stored else [])],
        }
        for kind, paths in places.items():
            path = next((p for p in paths if p.is_file()), None)
            if path is not None:
                yield {"job_id": job["id"], "kind": kind, "data": path.read_bytes()}
        if folder.is_dir():
            run.adopted_folders.append(folder)


def _translations() -> Iterator[dict[str, Any]]:
    listed = op.get_bind().execute(
        sa.text(
            "SELECT t.job_id, t.idx, t.text FROM translations_before t "
            "JOIN jobs_before j ON j.id = t.job_id ORDER BY t.job_id, t.idx"
        )
    )
    for row in listed:
        yield dict(row._mapping)


def _create() -> tuple[sa.Table, ...]:
    jobs = op.create_table(
        "document_jobs",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("key_digest", sa.LargeBinary, nullable=False),
        *(sa.Column(name, sa.Text, nullable=name in ("filename", "source_lang")) for name in TEXTS),
        sa.Column("billed_characters", sa.Integer, nullable=False),
        sa.Column("billed_to", sa.Text),
        sa.Column("segments_total", sa.Integer, nullable=False),
        sa.Column("segments_done", sa.Integer, nullable=False, server_default="0"),
        sa.Column("segments_at_start", sa.Integer, nullable=False, server_default="0"),
        *(sa.Column(name, sa.Double, nullable=name in TIMES[2:]) for name in TIMES),
        sa.Column("error", sa.Text),
        sa.Column("claimed_by", sa.Text),
        sa.Column("lease_until", sa.Double),
    )
    op.create_index("document_jobs_status", "document_jobs", ["status"])
    op.create_index("document_jobs_owner", "document_jobs", ["owner"])
    translations = op.create_table(
        "document_translations",
        sa.Column(
            "job_id",
            sa.Text,
            sa.ForeignKey("document_jobs.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("idx", sa.Integer, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("job_id", "idx"),
    )
    files = op.create_table(
        "document_files",
        sa.Column(
            "job_id",
            sa.Text,
            sa.ForeignKey("document_jobs.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
        sa.PrimaryKeyConstraint("job_id", "kind"),
    )
    return jobs, translations, files
