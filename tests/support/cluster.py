"""Real `translate-server serve` replicas and the real HAProxy, on loopback ports.

The router runs deploy/haproxy/haproxy.cfg itself: that file takes its addresses from
environment variables, so nothing is templated or copied here.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import httpx

from tests.support.ports import free_port
from tests.support.server_process import ENGINE_ENV, command

ROOT = Path(__file__).resolve().parents[2]
HAPROXY_CFG = ROOT / "deploy" / "haproxy" / "haproxy.cfg"
# A model load on a machine busy with other work can take minutes.
STARTUP_TIMEOUT = 600.0
STOP_TIMEOUT = 60.0


def haproxy_binary() -> str | None:
    return shutil.which("haproxy") or next(
        (
            path
            for path in ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy")
            if os.access(path, os.X_OK)
        ),
        None,
    )


class Replica:
    """One `translate-server serve` on a fixed port, restartable on that port. Its own
    process group, so that SIGKILL takes the engine's processes too (as a dying machine or
    container would)."""

    def __init__(self, name: str, args: list[str], log_dir: Path) -> None:
        self.name = name
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.args = args
        self.log_path = log_dir / f"{name}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        # Unbuffered: the log is complete even when a test kills the process.
        # No CPU binding, one OpenMP thread: by default vLLM's CPU worker pins itself to a
        # core, and on a small machine a (re)starting replica then stalls for minutes: at
        # import, torch probes each core by moving onto it, and waits behind a worker that
        # holds that core. Unpinned, the replicas share the cores as any two processes do.
        env = {
            **os.environ,
            **ENGINE_ENV,
            "TRANSLATE_LOG_FORMAT": "console",
            "PYTHONUNBUFFERED": "1",
            "VLLM_CPU_OMP_THREADS_BIND": "nobind",
            "OMP_NUM_THREADS": "1",
        }
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [*command(), "serve", "--port", str(self.port), *self.args],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")[-6000:]

    def wait_ready(self, timeout: float = STARTUP_TIMEOUT) -> float:
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            assert self.process is not None
            if self.process.poll() is not None:
                raise AssertionError(
                    f"{self.name} exited with {self.process.returncode}:\n" + self.output()
                )
            try:
                if httpx.get(f"{self.base_url}/health", timeout=2).status_code == 200:
                    return time.monotonic() - started
            except httpx.TransportError:
                pass
            time.sleep(0.25)
        raise AssertionError(f"{self.name} not ready after {timeout:.0f} s:\n{self.output()}")

    def terminate(self) -> int:
        """SIGTERM (the server drains), then its exit code."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(
                f"{self.name} still running after SIGTERM:\n" + self.output()
            ) from None

    def pause_engine(self) -> None:
        """Freeze the engine's processes (SIGSTOP), not the server: requests it admits then
        stay in flight, holding their slots, for as long as the test wants."""
        self._signal_children(signal.SIGSTOP)

    def resume_engine(self) -> None:
        self._signal_children(signal.SIGCONT)

    def _signal_children(self, signum: int) -> None:
        assert self.process is not None
        children = _descendants(self.process.pid)
        assert children, f"{self.name} has no engine process"
        for pid in children:
            try:
                os.kill(pid, signum)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        assert self.process is not None
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            if self.process is not None:
                _kill_group(self.process.pid)  # engine processes a SIGKILL left behind
            return
        try:
            self.terminate()
        except AssertionError:
            pass
        _kill_group(self.process.pid)


def _descendants(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
        for child in children:
            found += [child, *_descendants(child)]
    return found


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class Router:
    """`haproxy -f deploy/haproxy/haproxy.cfg` in the foreground, before the given replicas."""

    def __init__(self, replicas: list[Replica], log_dir: Path, **env: str) -> None:
        self.port, self.stats_port = free_port(), free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "REPLICA_1": f"127.0.0.1:{replicas[0].port}",
            "REPLICA_2": f"127.0.0.1:{replicas[1].port}",
            "ROUTER_BIND": f"127.0.0.1:{self.port}",
            "STATS_BIND": f"127.0.0.1:{self.stats_port}",
            **env,
        }
        self.env.pop("REPLICAS_DNS", None)
        self.log_path = log_dir / f"haproxy-{self.port}.log"
        binary = haproxy_binary()
        assert binary is not None
        check = subprocess.run(
            [binary, "-c", "-dW", "-f", str(HAPROXY_CFG)],
            env=self.env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert check.returncode == 0, check.stdout + check.stderr
        with self.log_path.open("wb") as log:
            # -dR: no SO_REUSEPORT, so a port still held by anything else fails loudly.
            self.process = subprocess.Popen(
                [binary, "-dR", "-f", str(HAPROXY_CFG)],
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")[-6000:]

    def servers(self) -> dict[str, dict[str, str]]:
        """HAProxy's own counters per replica (its CSV status page)."""
        text = httpx.get(f"http://127.0.0.1:{self.stats_port}/stats;csv", timeout=5).text
        rows = csv.DictReader(io.StringIO(text.lstrip("# ")))
        return {
            row["svname"]: row
            for row in rows
            if row["pxname"] == "replicas" and row["svname"] not in ("BACKEND", "FRONTEND")
        }

    def counter(self, server: str, name: str) -> int:
        return int(self.servers()[server][name] or 0)

    def wait_status(self, server: str, status: str, timeout: float = 30.0) -> float:
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            assert self.process.poll() is None, self.output()
            try:
                if self.servers()[server]["status"].split()[0] == status:
                    return time.monotonic() - started
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"{server} not {status} after {timeout:.0f} s: {self.servers()}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
