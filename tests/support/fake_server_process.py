"""`python -m tests.support.fake_server` (the serving loop around the engine double) as a
process of its own on a free port, over a shared database: the replicas of the tests that
need two servers on one PostgreSQL."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import httpx

from tests.support.ports import free_port


class FakeServerProcess:
    def __init__(
        self,
        database_url: str,
        log: Path,
        *args: str,
        env: Mapping[str, str] | None = None,
    ) -> None:
        """`args`: the fake server's own after its port (token delay, ...); `env`: settings
        as `TRANSLATE_*` variables, beside the database's."""
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        environ = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(sys.path),
            "TRANSLATE_DATABASE_URL": database_url,
            **(env or {}),
        }
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "tests.support.fake_server", str(self.port), *args],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=environ,
            )

    def healthy(self) -> bool:
        assert self.process.poll() is None, self.log.read_text()
        try:
            return httpx.get(f"{self.url}/health", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
