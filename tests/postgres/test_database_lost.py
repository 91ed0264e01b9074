"""A database that cannot be reached, or goes away: the stores raise StorageUnavailableError
(503 `database_unavailable` with Retry-After, through http/errors.py), reconnect by themselves
once it is back, and never show its password; a server whose database cannot be reached at
start exits with an error naming it (password hidden)."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from translate_server.compat.deepl.accounts import DeepLAccounts
from translate_server.errors import StorageUnavailableError
from translate_server.http.errors import answer_for
from translate_server.server.run import EXIT_STARTUP_FAILED
from translate_server.storage.opening import migrated_database

from tests.support.ports import free_port
from tests.support.postgres import Cluster, Unavailable, throwaway_cluster

SECRET = "s3cret-pw"


@pytest.fixture
def own_cluster() -> Iterator[Cluster]:
    """A cluster of the test's own, to stop and start again."""
    try:
        with throwaway_cluster() as cluster:
            yield cluster
    except Unavailable as why:
        pytest.skip(f"PostgreSQL is not available: {why}")


async def test_a_lost_database_is_unavailable_then_reconnected(own_cluster: Cluster) -> None:
    url = own_cluster.new_database()
    async with migrated_database(url, "accounts") as database:
        accounts = DeepLAccounts.over(database)
        await accounts.bill("alice", 5)
        own_cluster.stop("fast")
        with pytest.raises(StorageUnavailableError) as lost:
            await accounts.bill("alice", 1)
        answer = answer_for(lost.value)
        assert (answer.status, answer.error.code) == (503, "database_unavailable")
        assert answer.headers["Retry-After"] == "5"
        assert own_cluster.folder.name not in answer.error.message  # the client hears no URL
        assert own_cluster.folder.name in str(lost.value)  # the log does
        own_cluster.start()
        await accounts.bill("alice", 2)  # the pool's stale connections replaced by itself
        assert await accounts.characters("alice") == 7


async def test_a_password_is_never_shown(own_cluster: Cluster) -> None:
    url = own_cluster.url("nowhere", password=SECRET)  # no such database
    with pytest.raises(StorageUnavailableError) as failed:
        async with migrated_database(url, "memory"):
            pass
    assert SECRET not in str(failed.value) and "postgres:***@" in str(failed.value)


async def test_a_server_whose_database_cannot_be_reached_does_not_start(tmp_path: Path) -> None:
    url = f"postgresql://app:{SECRET}@/translate?host={tmp_path / 'no-server-here'}"
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.support.fake_server",
        str(free_port()),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join(sys.path),
            "TRANSLATE_DATABASE_URL": url,
        },
    )
    async with asyncio.timeout(120):
        output, _ = await process.communicate()
    text = output.decode()
    assert process.returncode == EXIT_STARTUP_FAILED, text
    assert "database_unavailable" in text and "app:***@/translate" in text
    assert SECRET not in text
