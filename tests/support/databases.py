"""The stores' databases in tests, on both backends: `backend` is a fixture parametrized over
SQLite (files in the test's folder) and PostgreSQL (a fresh database in a throwaway cluster,
started once per session; marked `postgres`, so `-m postgres` picks those and `make test-fast`
leaves them out). Where PostgreSQL cannot start, its tests skip, naming the step that failed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from translate_server.storage.locations import Locations, database_url, sqlite_url
from translate_server.storage.opening import StoreDatabases

from tests.support.postgres import Cluster, Unavailable, throwaway_cluster
from tests.support.prerequisites import missing_prerequisite

BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[Cluster | str]:
    """The session's cluster, or why there is none."""
    try:
        with throwaway_cluster() as cluster:
            yield cluster
    except Unavailable as why:
        yield f"PostgreSQL is not available: {why}"


@pytest.fixture
def postgres(postgres_cluster: Cluster | str) -> Cluster:
    if isinstance(postgres_cluster, str):
        missing_prerequisite("postgres", postgres_cluster)
    return postgres_cluster


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def database_location(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """A URL to an empty database of the backend: PostgreSQL's, or a folder for SQLite's
    files (`sqlite:///<folder>`)."""
    if backend == "postgresql":
        cluster: Cluster = request.getfixturevalue("postgres")
        return cluster.new_database()
    return f"sqlite:///{tmp_path}"


def locations_at(location: str, document_dir: Path) -> Locations:
    """Every store's place: one PostgreSQL database, or one SQLite file each in the folder."""
    if location.startswith("sqlite:///"):
        folder = Path(location.removeprefix("sqlite:///"))
        return Locations(
            sqlite_url(folder / "memories.sqlite3"),
            sqlite_url(folder / "glossaries.sqlite3"),
            sqlite_url(folder / "documents" / "jobs.sqlite3"),
            document_dir,
        )
    url = database_url(location)
    return Locations(url, url, url, document_dir)


@pytest.fixture
async def databases(database_location: str, tmp_path: Path) -> AsyncIterator[StoreDatabases]:
    """The stores' databases on the backend, migrated on first use, closed after the test."""
    opened = StoreDatabases(locations_at(database_location, tmp_path / "documents"))
    yield opened
    await opened.close()
