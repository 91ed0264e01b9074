"""Where each store's database is: one PostgreSQL database for all of them where
`--database-url` names one, else an SQLite file each, at the paths the stores always had
(`memories.sqlite3` and `glossaries.sqlite3` in the model cache unless `--memory-db` and
`--glossary-db` say otherwise, `jobs.sqlite3` in `--document-dir`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from translate_server.settings import Settings

Store = Literal["memory", "accounts", "jobs"]
STORES: tuple[Store, ...] = ("memory", "accounts", "jobs")


class BadDatabaseUrlError(ValueError):
    pass


@dataclass(frozen=True)
class Locations:
    memory: URL
    accounts: URL
    jobs: URL
    # The folder whose per-job folders held the jobs' files before they moved into the
    # database: the jobs' first migration reads them from there.
    document_dir: Path

    def of(self, store: Store) -> URL:
        url: URL = getattr(self, store)
        return url


def locations(settings: Settings) -> Locations:
    document_dir = Path(settings.documents.document_dir).expanduser()
    configured = settings.storage.database_url
    if configured:
        url = database_url(configured)
        return Locations(url, url, url, document_dir)
    cache = Path(settings.engine.model_cache_dir).expanduser()
    options = settings.translation
    return Locations(
        memory=sqlite_url(_path(options.memory_db) or cache / "memories.sqlite3"),
        accounts=sqlite_url(_path(options.glossary_db) or cache / "glossaries.sqlite3"),
        jobs=sqlite_url(document_dir / "jobs.sqlite3"),
        document_dir=document_dir,
    )


def database_url(text: str) -> URL:
    """`postgresql://...` (or `postgres://`, `postgresql+psycopg://`) or `sqlite:///path`, as
    the URL of the driver the stores use (psycopg 3; the standard library's sqlite3). Raises
    BadDatabaseUrlError."""
    try:
        url = make_url(text)
    except ArgumentError:
        raise BadDatabaseUrlError(
            "--database-url must be a URL: postgresql://user:password@host/database "
            "or sqlite:///path"
        ) from None
    backend = url.get_backend_name()
    if backend in ("postgresql", "postgres"):
        return url.set(drivername="postgresql+psycopg")
    if backend == "sqlite" and url.database not in (None, "", ":memory:"):
        return sqlite_url(Path(url.database).expanduser())
    raise BadDatabaseUrlError(
        f"--database-url {shown(url)}: only postgresql:// or sqlite:///path is supported"
    )


def sqlite_url(path: Path) -> URL:
    return URL.create("sqlite", database=str(path))


def shown(url: URL) -> str:
    """The URL as a log line or an error may show it: its password hidden."""
    return url.render_as_string(hide_password=True)


def _path(configured: str | None) -> Path | None:
    return Path(configured).expanduser() if configured else None
