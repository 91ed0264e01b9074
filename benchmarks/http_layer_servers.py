"""The apps `http-layer` compares, each started on one uvicorn worker from the apps' folder, and
the OTLP sink the traced arms export their spans to."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

APPS: tuple[str, ...] = ("litestar", "fastapi", "floor")
# The service as another checkout has it (`--baseline DIR`): its own src/ and benchmarks/apps.py.
BASELINE = "baseline"
TRACED_APPS: tuple[str, ...] = ("traced", "otel-asgi")
# Not compared by default: traced arms, and the service without its translation quality guard
# (`--apps litestar,unguarded` shows what the guard costs).
FACTORIES = {
    "litestar": "apps:litestar_app",
    "fastapi": "apps:fastapi_app",
    "floor": "apps:floor_app",
    "traced": "apps:litestar_traced_app",
    "otel-asgi": "apps:litestar_otel_asgi_app",
    "unguarded": "apps:unguarded_app",
    "uncoalesced": "apps:uncoalesced_app",
    "floor-coalesced": "apps:floor_coalesced_app",
    "litestar-floor": "apps:litestar_floor_app",
    BASELINE: "apps:litestar_app",
}


def find_bench_dir(given: str | None) -> Path:
    """The folder of the apps' factories: this one, unless another is given."""
    candidate = Path(given) if given else Path(__file__).resolve().parent
    if (candidate / "apps.py").is_file() and (candidate / "fastapi_app.py").is_file():
        return candidate.resolve()
    raise FileNotFoundError(f"{candidate} holds no apps.py and fastapi_app.py; pass --bench-dir")


def _pin(cpus: set[int] | None):
    if not cpus:
        return None
    return lambda: os.sched_setaffinity(0, cpus)


def start_app(
    name: str,
    bench_dir: Path,
    port: int,
    cpus: set[int] | None,
    traces_to: str | None = None,
    baseline: Path | None = None,
) -> subprocess.Popen:
    env = dict(os.environ)
    if name == BASELINE:
        if baseline is None:
            raise ValueError("the baseline arm needs --baseline DIR")
        # The other checkout's package and apps, ahead of this one's.
        bench_dir = baseline / "benchmarks"
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(baseline / "src"), env.get("PYTHONPATH")) if p
        )
    if traces_to is not None:
        env.update(
            {
                "BENCH_OTLP_TRACES_ENDPOINT": traces_to,
                "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf",
            }
        )
    command = [
        sys.executable,
        "-m",
        "uvicorn",
        "--app-dir",
        str(bench_dir),
        "--factory",
        FACTORIES[name],
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        "1",
        "--no-access-log",
        "--log-level",
        "warning",
    ]
    # The request log lines are written (the work is the same for both apps) and dropped.
    return subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=_pin(cpus),
        start_new_session=True,
        env=env,
    )


class SpanSink:
    """An OTLP/HTTP endpoint that takes every export and keeps nothing (its thread runs in
    the load generator's process, on the load generator's cores)."""

    def __init__(self) -> None:
        import http.server
        import threading

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", 0)))
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                return None

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1/traces"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()


def wait_ready(process: subprocess.Popen, port: int, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"app on port {port} exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"app on port {port} not ready after {timeout_s:.0f} s")
