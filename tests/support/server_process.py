"""`translate-server serve` as a real subprocess, for the end-to-end engine tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.support.harness import eventually_sync
from tests.support.ports import free_port

STARTUP_TIMEOUT = 180.0
STOP_TIMEOUT = 60.0

# What the engine needs on a CPU-only machine with no model hub.
ENGINE_ENV = {
    "VLLM_CPU_KVCACHE_SPACE": "1",
    "VLLM_NO_USAGE_STATS": "1",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
}


def command() -> list[str]:
    script = Path(sys.executable).with_name("translate-server")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "translate_server.cli"]


def _with_stores(args: list[str], log_path: Path) -> list[str]:
    """The stores a test names, or else ones beside its log: never the user's own (the model
    cache's SQLite files)."""
    folder = log_path.parent / "stores"
    defaults = {
        "--memory-db": folder / "memories.sqlite3",
        "--glossary-db": folder / "glossaries.sqlite3",
        "--document-dir": folder / "documents",
    }
    if "--database-url" in args:
        return args
    named = [[flag, str(path)] for flag, path in defaults.items() if flag not in args]
    return [*args, *(word for pair in named for word in pair)]


class ServerProcess:
    """Started by `start()`; its output goes to a file, shown when something fails."""

    def __init__(self, args: list[str], log_path: Path) -> None:
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        env = {**os.environ, **ENGINE_ENV, "TRANSLATE_LOG_FORMAT": "console"}
        with log_path.open("wb") as log:
            self.process = subprocess.Popen(
                [*command(), "serve", "--port", str(self.port), *_with_stores(args, log_path)],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
            )

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_ready(self, timeout: float = STARTUP_TIMEOUT) -> float:
        """Seconds until GET /health answered 200."""
        started = time.monotonic()
        try:
            eventually_sync(
                self._healthy,
                timeout,
                every=0.5,
                failure=lambda: f"server not ready after {timeout:.0f} s:\n{self.output()}",
            )
        except AssertionError:
            self.stop()
            raise
        return time.monotonic() - started

    def _healthy(self) -> bool:
        if self.process.poll() is not None:
            raise AssertionError(
                f"server exited with {self.process.returncode} before it was ready:\n"
                + self.output()
            )
        try:
            return httpx.get(f"{self.base_url}/health", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    def terminate(self, timeout: float) -> int:
        """SIGTERM, then the exit code; AssertionError (with the output) if it hangs."""
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.stop()
            raise AssertionError(
                f"server still running {timeout:.0f} s after SIGTERM:\n{self.output()}"
            ) from None

    def stop(self) -> None:
        """Make sure it is gone: SIGTERM first, so that vLLM's engine processes are shut down
        with it (SIGKILL would orphan them), SIGKILL if it does not exit."""
        if self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=30)


def start(args: list[str], log_path: Path, timeout: float = STARTUP_TIMEOUT) -> ServerProcess:
    server = ServerProcess(args, log_path)
    try:
        seconds = server.wait_ready(timeout)
    except BaseException:
        server.stop()
        raise
    print(f"\nserver ready in {seconds:.1f} s")
    return server
