"""The SQLite file that keeps the document jobs: its schema, and opening it (WAL), which
brings a database made by an older release up to date."""

from __future__ import annotations

import sqlite3
from pathlib import Path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY,
    key_digest BLOB NOT NULL,
    owner TEXT,
    status TEXT NOT NULL,
    format TEXT NOT NULL,
    filename TEXT,
    source_lang TEXT,
    target_lang TEXT NOT NULL,
    options TEXT NOT NULL,
    billed_characters INTEGER NOT NULL,
    billed_to TEXT,
    segments_total INTEGER NOT NULL,
    segments_done INTEGER NOT NULL DEFAULT 0,
    segments_at_start INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    started_at REAL,
    finished_at REAL,
    error TEXT,
    result_path TEXT,
    needs_review INTEGER,
    review TEXT
);
CREATE INDEX IF NOT EXISTS jobs_status ON jobs (status);
CREATE TABLE IF NOT EXISTS translations (
    job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    text TEXT NOT NULL,
    estimate REAL,
    needs_review INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (job_id, idx)
);
"""
# Columns added after a table was first made: a database made before them gains them.
_ADDED_COLUMNS = {
    "jobs": {"billed_to": "TEXT", "needs_review": "INTEGER", "review": "TEXT"},
    "translations": {"estimate": "REAL", "needs_review": "INTEGER NOT NULL DEFAULT 0"},
}


def open_database(path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode; the store uses it from its one worker thread only."""
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")  # durable at each checkpoint; fast commits
    db.execute("PRAGMA foreign_keys=ON")
    db.executescript(_SCHEMA)
    for table, columns in _ADDED_COLUMNS.items():
        present = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        for name, kind in columns.items():
            if name not in present:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")
    return db
