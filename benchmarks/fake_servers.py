"""Server processes for the storage benchmarks: `translate-server serve`'s serving loop around
the engine double (tests/support/fake_server.py), each its own process on a loopback port,
over the given database (SQLite files in a folder of their own where there is none), and a
throwaway PostgreSQL cluster (tests/support/postgres.py) where one is wanted."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from tests.support.ports import free_port
from tests.support.postgres import throwaway_cluster

ROOT = Path(__file__).resolve().parents[1]


class FakeServer:
    def __init__(self, token_delay: float, database_url: str | None, env: dict[str, str]) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.folder = Path(tempfile.mkdtemp(prefix="bench-server-"))
        settings = {
            "TRANSLATE_LOG_LEVEL": "warning",
            **({"TRANSLATE_DATABASE_URL": database_url} if database_url else {}),
            **env,
        }
        self.log = self.folder / "server.log"
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "tests.support.fake_server",
                    str(self.port),
                    str(token_delay),
                    "",
                    str(self.folder / "documents"),
                ],
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **settings},
            )

    def wait_ready(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited:\n{self.log.read_text()[-3000:]}")
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    return
            time.sleep(0.2)
        raise RuntimeError(f"server not ready:\n{self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@contextlib.contextmanager
def fake_servers(
    count: int,
    *,
    database_url: str | None,
    token_delay: float = 0.0,
    env: dict[str, str] | None = None,
) -> Iterator[list[FakeServer]]:
    """`count` servers over one database (SQLite: only one server, its own files)."""
    servers = [FakeServer(token_delay, database_url, env or {}) for _ in range(count)]
    try:
        for server in servers:
            server.wait_ready()
        yield servers
    finally:
        for server in servers:
            server.stop()


@contextlib.contextmanager
def postgres_database(url: str | None) -> Iterator[str]:
    """`url`, or a fresh database in a throwaway cluster on a Unix socket."""
    if url is not None:
        yield url
        return
    with throwaway_cluster() as cluster:
        yield cluster.new_database()


def percentile(sorted_values: list[float], share: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(share * len(sorted_values)))]
