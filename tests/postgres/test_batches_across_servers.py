"""A batch whose server is SIGKILLed midway, over PostgreSQL with two server processes around
the engine double: the other server takes its job over once the dead one's lease runs out and
finishes it from the lines already recorded: none answered twice, none billed twice."""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest
from sqlalchemy.engine import make_url

from tests.support.fake_server_process import FakeServerProcess
from tests.support.harness import eventually_sync
from tests.support.postgres import Cluster

LINES = 120
ROUTE = 'route="batch /v1/chat/completions",status="200"'


class Server(FakeServerProcess):
    """Each answer is 20 tokens, 2 ms apart."""

    def __init__(self, database_url: str, log: Path) -> None:
        env = {
            # Two lines in the engine at once (half of four slots): the batch takes seconds.
            "TRANSLATE_MAX_NUM_SEQS": "4",
            # A dead server's batch is taken over two seconds after its last heartbeat.
            "TRANSLATE_DOCUMENT_LEASE": "2",
        }
        super().__init__(database_url, log, "0.002", env=env)

    def billed_lines(self) -> int:
        """The batch lines this server counted as answered requests (its /metrics)."""
        for line in httpx.get(f"{self.url}/metrics", timeout=5).text.splitlines():
            if line.startswith("translate_requests_total{") and ROUTE in line:
                return int(float(line.rsplit(" ", 1)[1]))
        return 0


@pytest.fixture
def servers(postgres: Cluster, tmp_path: Path) -> Iterator[tuple[list[Server], str]]:
    database = postgres.new_database()
    started = [Server(database, tmp_path / f"server{i}.log") for i in (1, 2)]
    try:
        for server in started:
            eventually_sync(server.healthy, timeout=120, every=0.2)
        yield started, str(make_url(database).database)
    finally:
        for server in started:
            server.stop()


def _requests() -> bytes:
    return "".join(
        json.dumps(
            {
                "custom_id": f"line-{i}",
                "method": "POST",
                "url": "/v1/chat/completions",
                "body": {"model": "fake-model", "messages": [{"role": "user", "content": str(i)}]},
            }
        )
        + "\n"
        for i in range(LINES)
    ).encode()


def test_a_batch_whose_server_dies_is_finished_by_the_other(
    servers: tuple[list[Server], str], postgres: Cluster
) -> None:
    started, database = servers
    first = openai.OpenAI(base_url=f"{started[0].url}/v1", api_key="unused", max_retries=0)
    uploaded = first.files.create(file=("lines.jsonl", _requests()), purpose="batch")
    batch = first.batches.create(
        input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
    )
    eventually_sync(
        lambda: first.batches.retrieve(batch.id).request_counts.completed >= 20, timeout=60
    )
    claimed_by = postgres.psql(
        "SELECT claimed_by FROM document_jobs j JOIN openai_batches b ON b.job_id = j.id "
        f"WHERE b.id = '{batch.id}'",
        database=database,
    )
    running = next(s for s in started if claimed_by.split("/")[1] == str(s.process.pid))
    other = next(s for s in started if s is not running)
    running.process.send_signal(signal.SIGKILL)
    running.process.wait()

    through_other = openai.OpenAI(base_url=f"{other.url}/v1", api_key="unused", max_retries=0)
    kept = through_other.batches.retrieve(batch.id).request_counts.completed
    assert 0 < kept < LINES
    deadline = time.monotonic() + 120
    while (found := through_other.batches.retrieve(batch.id)).status != "completed":
        assert found.status in ("in_progress", "finalizing"), found
        assert time.monotonic() < deadline, found
        time.sleep(0.2)
    assert found.request_counts.completed == LINES and found.error_file_id is None
    output = [
        json.loads(line)
        for line in through_other.files.content(found.output_file_id).text.splitlines()
    ]
    assert sorted(line["custom_id"] for line in output) == sorted(f"line-{i}" for i in range(LINES))
    # The survivor ran (and billed) only the lines the dead server had not recorded.
    assert other.billed_lines() == LINES - kept
    # Every line's tokens counted once: 20 answer tokens each.
    assert found.usage is not None and found.usage.output_tokens == 20 * LINES
