"""No plain key at rest: keys made through the admin API, rotated and used on every surface,
then a dump of the database (every SQLite file byte for byte, or `pg_dump`) and everything the
server logged are searched for them; none is found, while their ids are."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from tests.support.harness import running

pytestmark = pytest.mark.usefixtures("backend")

ADMIN = {"Authorization": "Bearer admin-secret"}


def dump(backend: str, folder: Path, location: str) -> bytes:
    if backend == "sqlite":
        return b"".join(path.read_bytes() for path in sorted(folder.rglob("*.sqlite3*")))
    url = make_url(location)
    pg_dump = shutil.which("pg_dump") or "pg_dump"
    host = url.query["host"]
    return subprocess.run(
        [pg_dump, "-h", str(host), "-U", "postgres", str(url.database)],
        capture_output=True,
        check=True,
    ).stdout


async def test_no_key_is_found_in_a_dump_of_the_database_or_the_log(
    make_app, backend: str, tmp_path: Path, capfd: pytest.CaptureFixture[str], request
) -> None:
    location = request.getfixturevalue("database_location") if backend == "postgresql" else ""
    keys, ids = [], []
    async with running(make_app(admin_key="admin-secret")) as client:
        await client.post("/admin/accounts", json={"name": "team"}, headers=ADMIN)
        for name in ("web", "ci"):
            made = (
                await client.post(
                    "/admin/keys", json={"account": "team", "name": name}, headers=ADMIN
                )
            ).json()
            keys.append(made["key"])
            ids.append(made["data"]["key_id"])
        rotated = (
            await client.post(
                f"/admin/keys/{ids[0]}/rotate", json={"grace_seconds": 60}, headers=ADMIN
            )
        ).json()
        keys.append(rotated["key"])
        for key in keys:
            bearer = {"Authorization": f"Bearer {key}"}
            assert (
                await client.post(
                    "/translate",
                    json={"text": "Good morning", "source_lang": "en", "target_lang": "de"},
                    headers=bearer,
                )
            ).status_code == 200
            await client.post(
                "/v2/translate",
                data={
                    "text": "Good morning",
                    "source_lang": "EN",
                    "target_lang": "DE",
                    "auth_key": key,
                },
            )
            await client.post("/memories", json={"name": "m"}, headers=bearer)
        await client.post(f"/admin/keys/{ids[1]}/revoke", headers=ADMIN)
        await client.post(
            "/translate", json={"text": "Hi"}, headers={"Authorization": f"Bearer {keys[1]}"}
        )
        await app_keys_flushed(client)
    logged = capfd.readouterr()
    at_rest = dump(backend, tmp_path, location) + (logged.out + logged.err).encode()
    assert ids[0].encode() in at_rest  # the dump holds the keys' records
    for key in keys:
        assert key.encode() not in at_rest
        assert key.split("_", 2)[2].encode() not in at_rest  # nor the secret alone


async def app_keys_flushed(client) -> None:
    """The keys' last use written (as the app does each minute, and when it stops)."""
    await client.app.state.services.keys.flush()
