"""Keys made and revoked at run time, across two server processes over one PostgreSQL
database: a key made through replica A works on B, and once revoked through A is refused by B
within 2 s, without a restart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.fake_server_process import FakeServerProcess
from tests.support.harness import eventually_sync
from tests.support.postgres import Cluster

ADMIN = {"Authorization": "Bearer admin-secret"}


class Replica(FakeServerProcess):
    def __init__(self, database_url: str, log: Path) -> None:
        super().__init__(database_url, log, env={"TRANSLATE_ADMIN_KEY": "admin-secret"})


@pytest.fixture
def replicas(postgres: Cluster, tmp_path: Path) -> Iterator[list[Replica]]:
    database = postgres.new_database()
    started = [Replica(database, tmp_path / f"replica{i}.log") for i in (1, 2)]
    try:
        for replica in started:
            eventually_sync(replica.healthy, timeout=120, every=0.2)
        yield started
    finally:
        for replica in started:
            replica.stop()


def test_a_key_revoked_through_one_replica_is_refused_by_the_other_within_2_s(
    replicas: list[Replica],
) -> None:
    a, b = replicas
    with httpx.Client(timeout=30) as client:
        assert (
            client.post(f"{a.url}/admin/accounts", json={"name": "team"}, headers=ADMIN).status_code
            == 201
        )
        made = client.post(f"{a.url}/admin/keys", json={"account": "team"}, headers=ADMIN).json()
        bearer = {"Authorization": f"Bearer {made['key']}"}

        def works_on_b() -> bool:
            return client.get(f"{b.url}/languages", headers=bearer).status_code == 200

        # B learns of the key, and so that keys are required now, within 2 s.
        eventually_sync(
            lambda: client.get(f"{b.url}/languages").status_code == 401, timeout=2, every=0.05
        )
        assert works_on_b()

        revoked = client.post(f"{a.url}/admin/keys/{made['data']['key_id']}/revoke", headers=ADMIN)
        assert revoked.status_code == 200
        eventually_sync(lambda: not works_on_b(), timeout=2, every=0.05)
