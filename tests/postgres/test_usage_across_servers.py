"""Usage counted by two server processes over one PostgreSQL database at once: every
character of 200 concurrent DeepL requests, spread over both, is counted once (each count is
one `UPDATE ... SET characters = characters + n`, never read, added to and written back)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.fake_server_process import FakeServerProcess
from tests.support.harness import eventually_sync
from tests.support.postgres import Cluster

KEYS = ("alice", "bob")
REQUESTS = 200


class FakeServer(FakeServerProcess):
    def __init__(self, database_url: str, log: Path) -> None:
        # No API keys configured: DeepL's usage is kept per presented key all the same. The
        # 100 requests each server gets at once wait for the engine, not refused (DeepL's
        # clients hear an overload as 429).
        super().__init__(database_url, log, env={"TRANSLATE_MAX_QUEUED_REQUESTS": "256"})


@pytest.fixture
def servers(postgres: Cluster, tmp_path: Path) -> Iterator[list[FakeServer]]:
    database = postgres.new_database()
    started = [FakeServer(database, tmp_path / f"server{i}.log") for i in (1, 2)]
    try:
        for server in started:
            eventually_sync(server.healthy, timeout=120, every=0.2)
        yield started
    finally:
        for server in started:
            server.stop()


async def test_usage_is_exact_after_concurrent_requests_on_both_servers(
    servers: list[FakeServer],
) -> None:
    expected = dict.fromkeys(KEYS, 0)
    calls = []
    for i in range(REQUESTS):
        key = KEYS[i % 3 == 0]  # a third bob's, the rest alice's
        texts = [f"Request {i}, sentence {j}." for j in range(1 + i % 4)]
        expected[key] += sum(len(text) for text in texts)
        calls.append((servers[i % 2].url, key, texts))

    async with httpx.AsyncClient(timeout=120) as client:

        async def translate(url: str, key: str, texts: list[str]) -> int:
            response = await client.post(
                f"{url}/v2/translate",
                json={"text": texts, "target_lang": "DE", "source_lang": "EN"},
                headers={"Authorization": f"DeepL-Auth-Key {key}"},
            )
            return response.status_code

        statuses = await asyncio.gather(*(translate(*call) for call in calls))
        assert set(statuses) == {200}
        for server in servers:
            for key in KEYS:
                usage = await client.get(
                    f"{server.url}/v2/usage", headers={"Authorization": f"DeepL-Auth-Key {key}"}
                )
                assert usage.json()["character_count"] == expected[key], (server.url, key)
