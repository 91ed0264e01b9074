"""Usage counted by two server processes over one PostgreSQL database at once: every
character of 200 concurrent DeepL requests, spread over both, is counted once (each count is
one `UPDATE ... SET characters = characters + n`, never read, added to and written back)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.harness import eventually_sync
from tests.support.ports import free_port
from tests.support.postgres import Cluster

KEYS = ("alice", "bob")
REQUESTS = 200


class FakeServer:
    """`tests.support.fake_server` (the serving loop around the engine double) on a port."""

    def __init__(self, database_url: str, log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(sys.path),
            # No API keys configured: DeepL's usage is kept per presented key all the same.
            "TRANSLATE_DATABASE_URL": database_url,
            # The 100 requests each server gets at once wait for the engine, not refused
            # (DeepL's clients hear an overload as 429).
            "TRANSLATE_MAX_QUEUED_REQUESTS": "256",
        }
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "tests.support.fake_server", str(self.port)],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
            )

    def healthy(self) -> bool:
        assert self.process.poll() is None, self.log.read_text()
        try:
            return httpx.get(f"{self.url}/health", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


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
