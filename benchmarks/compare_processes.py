"""The subprocesses `compare`'s arms run in: an environment that imports this checkout and runs
vLLM on the CPU, a free port, and a server started and stopped in its own process group."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CPU_ENV = {
    "VLLM_TARGET_DEVICE": "cpu",
    "VLLM_CPU_KVCACHE_SPACE": "1",
    "VLLM_NO_USAGE_STATS": "1",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# The checkout's root, so that the engine arm's subprocess imports `benchmarks` from any cwd.
CHECKOUT = Path(__file__).resolve().parents[1]


def subprocess_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(CHECKOUT), env.get("PYTHONPATH"))))
    for key, value in CPU_ENV.items():
        env.setdefault(key, value)
    return env


@dataclass
class Server:
    """A serving subprocess in its own process group, stderr captured to a file."""

    command: list[str]
    port: int
    log_path: Path
    process: subprocess.Popen | None = None
    startup_s: float = 0.0
    _log: Any = field(default=None, repr=False)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_s: float) -> None:
        import urllib.request

        self._log = open(self.log_path, "wb")
        began = time.perf_counter()
        self.process = subprocess.Popen(
            self.command,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env=subprocess_env(),
            start_new_session=True,
        )
        while time.perf_counter() - began < timeout_s:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"{self.command[0]} exited with {self.process.returncode}; "
                    f"see {self.log_path}:\n{self.log_tail()}"
                )
            try:
                with urllib.request.urlopen(self.base_url + "/v1/models", timeout=2) as answer:
                    if answer.status == 200:
                        self.startup_s = time.perf_counter() - began
                        return
            except OSError:
                pass
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(
            f"{self.command[0]} not ready after {timeout_s:.0f} s; see {self.log_path}"
        )

    def log_size(self) -> int:
        return self.log_path.stat().st_size

    def log_since(self, offset: int) -> str:
        with open(self.log_path, "rb") as handle:
            handle.seek(offset)
            return handle.read().decode("utf-8", "replace")

    def log_tail(self, chars: int = 3000) -> str:
        return self.log_path.read_bytes()[-chars:].decode("utf-8", "replace")

    def stop(self, grace_s: float = 30.0) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGINT)
        try:
            self.process.wait(grace_s)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        if self._log is not None:
            self._log.close()
