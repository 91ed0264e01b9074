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

from tests.integration.memory.test_memory_api import make_memory, upload
from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, read_until, running
from tests.support.ports import free_port
from tests.support.postgres import Cluster, Unavailable, throwaway_cluster
from tests.support.prerequisites import missing_prerequisite

SECRET = "s3cret-pw"


@pytest.fixture
def own_cluster() -> Iterator[Cluster]:
    """A cluster of the test's own, to stop and start again."""
    try:
        with throwaway_cluster() as cluster:
            yield cluster
    except Unavailable as why:
        missing_prerequisite("postgres", f"PostgreSQL is not available: {why}")


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


async def test_a_server_whose_database_is_lost_serves_what_needs_none_and_resumes(
    own_cluster: Cluster, make_app, engine: FakeEngine
) -> None:
    """PostgreSQL stopped under a serving app: what needs no store keeps serving, what does is
    a 503 that says when to come back, readiness names the stores; once it is back, the app
    reconnects by itself, nothing it acknowledged is lost, and the document job that was
    running when it went finishes with its pieces."""
    app = make_app(database_url=own_cluster.new_database(), api_key=["k"])
    auth = {"authorization": "Bearer k"}
    engine.token_delay = 0.02  # the document below takes seconds: it is running when the
    async with running(app) as client:  # database goes
        memory_id = await make_memory(client, **auth)
        assert (await upload(client, memory_id, "m.csv", MEMORY, **auth)).status_code == 200
        submitted = await _submit(client, auth)
        await read_until(
            lambda: client.get(submitted["status_url"], headers=auth),
            lambda found: found.json()["segments_done"] > 0,
        )

        own_cluster.stop("fast")
        await _check_serving_without_the_database(client, auth, memory_id, submitted)

        own_cluster.start()
        ready = await read_until(
            lambda: client.get("/health/ready"), lambda r: r.status_code == 200, timeout=30
        )
        assert ready.json()["stores"] == {"memory": "ok", "accounts": "ok", "jobs": "ok"}
        second = await upload(
            client, memory_id, "m2.csv", b"en,de\nGood night.,Gute Nacht.\n", **auth
        )
        assert second.status_code == 200  # writes resume on the pool's fresh connections
        memory = (await client.get(f"/memories/{memory_id}", headers=auth)).json()
        assert memory["entries"] == 3  # both imports, nothing acknowledged lost
        done = await read_until(
            lambda: client.get(submitted["status_url"], headers=auth),
            lambda found: found.json()["status"] in ("done", "error"),
            timeout=60,
        )
        assert done.json()["status"] == "done"
        result = await client.get(submitted["result_url"], headers=auth)
        assert result.content == DOCUMENT.upper()


async def _check_serving_without_the_database(
    client: AppClient, auth: dict[str, str], memory_id: str, submitted: dict
) -> None:
    assert (await client.get("/health")).status_code == 200  # routers keep sending traffic
    assert (await client.get("/health/live")).status_code == 200
    not_ready = await client.get("/health/ready")
    assert not_ready.status_code == 503 and not_ready.headers["retry-after"] == "5"
    error = not_ready.json()["error"]
    assert error["code"] == "database_unavailable"
    assert "accounts, jobs and memory stores" in error["message"]
    plain = await client.post(
        "/translate", json={"text": "Hello.", "target_lang": "de"}, headers=auth
    )
    assert plain.status_code == 200 and plain.json()["translation"] == "HELLO."
    chat = await client.post(
        "/v1/chat/completions",
        json={"model": "fake-model", "messages": [{"role": "user", "content": "Hi."}]},
        headers=auth,
    )
    assert chat.status_code == 200
    for refused in (
        await client.get(f"/memories/{memory_id}", headers=auth),
        await upload(client, memory_id, "m2.csv", b"en,de\nGood night.,Gute Nacht.\n", **auth),
        await client.post(
            "/translate",
            json={"text": "Save the file.", "target_lang": "de", "memory": memory_id},
            headers=auth,
        ),
        await client.get(submitted["status_url"], headers=auth),
        await _submit_response(client, auth),
    ):
        assert refused.status_code == 503, refused.text
        assert refused.json()["error"]["code"] == "database_unavailable"
        assert refused.headers["retry-after"] == "5"
        assert "postgres" not in refused.text  # no URL, let alone a password


MEMORY = b"en,de\nSave the file.,Speichern Sie die Datei.\nOpen it.,Offnen Sie sie.\n"
DOCUMENT = "".join(f"Line number {i} of the document.\n\n" for i in range(40)).encode()


async def _submit_response(client: AppClient, auth: dict[str, str]):  # type: ignore[no-untyped-def]
    return await client.post(
        "/translate/document",
        files={"file": ("doc.txt", DOCUMENT)},
        data={"target_lang": "de"},
        headers=auth,
    )


async def _submit(client: AppClient, auth: dict[str, str]) -> dict:
    response = await _submit_response(client, auth)
    assert response.status_code == 202, response.text
    return dict(response.json())
