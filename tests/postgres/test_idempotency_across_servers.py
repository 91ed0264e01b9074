"""An `Idempotency-Key` kept in the shared database: two server processes (the serving loop
around the engine double) over one PostgreSQL database; a request replayed on the other
server gets the first answer and is billed once, even while the first still runs there."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.fake_server_process import FakeServerProcess
from tests.support.harness import eventually_sync
from tests.support.postgres import Cluster

TOKEN_DELAY = "0.05"  # 20 words: a second a translation, long enough to replay meanwhile
KEY = {"Authorization": "DeepL-Auth-Key alice"}


class _Server(FakeServerProcess):
    def __init__(self, database_url: str, log: Path) -> None:
        # No translation cache: every run reaches the engine.
        env = {"TRANSLATE_TRANSLATION_CACHE_SIZE": "0"}
        super().__init__(database_url, log, TOKEN_DELAY, env=env)


@pytest.fixture
def servers(postgres: Cluster, tmp_path: Path) -> Iterator[list[_Server]]:
    database = postgres.new_database()
    started = [_Server(database, tmp_path / f"server{i}.log") for i in (1, 2)]
    try:
        for server in started:
            eventually_sync(server.healthy, timeout=120, every=0.2)
        yield started
    finally:
        for server in started:
            server.stop()


async def test_a_key_replays_on_the_other_server_billed_once(servers: list[_Server]) -> None:
    one, two = servers
    body = {"text": ["Good morning"], "target_lang": "DE", "source_lang": "EN"}
    async with httpx.AsyncClient(timeout=60) as client:

        async def translate(
            server: _Server, key: str, text: str = "Good morning"
        ) -> httpx.Response:
            return await client.post(
                f"{server.url}/v2/translate",
                json={**body, "text": [text]},
                headers={**KEY, "Idempotency-Key": key},
            )

        async def billed() -> set[int]:
            found = set()
            for server in servers:
                usage = await client.get(f"{server.url}/v2/usage", headers=KEY)
                found.add(usage.json()["character_count"])
            return found

        first = await translate(one, "k-1")
        replayed = await translate(two, "k-1")
        assert first.status_code == replayed.status_code == 200
        assert replayed.json() == first.json()
        assert replayed.headers["idempotent-replayed"] == "true"
        assert await billed() == {len("Good morning")}

        refused = await translate(two, "k-1", "Good night")
        assert refused.status_code == 422  # in DeepL's shape on its routes
        assert "Idempotency-Key" in refused.json()["message"]

        async def later() -> httpx.Response:
            await asyncio.sleep(0.3)  # the first is running on the other server
            return await translate(two, "k-2")

        running, waited = await asyncio.gather(translate(one, "k-2"), later())
        assert waited.json() == running.json()
        assert waited.headers["idempotent-replayed"] == "true"
        assert await billed() == {2 * len("Good morning")}
