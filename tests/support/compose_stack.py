"""The docker tier's helpers: compose with the local images, health waits, figures."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROJECT = "translate-server-test"
PORT = int(os.environ.get("DOCKER_TIER_PORT", "18000"))
IMAGE = "translate-server:0.1.0-cpu"
LOCAL_IMAGES = [
    "translate-server-local/python:3.11",
    "translate-server-local/haproxy:2.6",
    "translate-server-local/prometheus:2",
]
# First start prepares Gemma 3 270M from its wheels (about 50 s) before the engine starts.
HEALTHY_WITHIN = float(os.environ.get("DOCKER_TIER_HEALTHY_WITHIN", "600"))
FIGURES: dict[str, float | str] = {}


def run(*args: str, timeout: float = 600, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(
        args, check=False, cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )
    if check and done.returncode != 0:
        raise AssertionError(
            f"{' '.join(args)} exited {done.returncode}:\n"
            f"{done.stdout[-2000:]}{done.stderr[-2000:]}"
        )
    return done


def compose(*args: str, timeout: float = 900, check: bool = True) -> subprocess.CompletedProcess:
    files = [
        "-f",
        "docker-compose.yml",
        "-f",
        "deploy/docker/compose.local.yml",
        "-f",
        "tests/docker/compose.tier.yml",
    ]
    return run("docker", "compose", "-p", PROJECT, *files, *args, timeout=timeout, check=check)


def container_health(container: str) -> str:
    state = run("docker", "inspect", "--format", "{{.State.Health.Status}}", container, check=False)
    return state.stdout.strip() or "gone"


def containers(service: str) -> list[str]:
    listed = compose("ps", "-q", service, check=False)
    return listed.stdout.split()


def wait_healthy(service: str, count: int = 1, within: float = HEALTHY_WITHIN) -> float:
    """Seconds until `count` containers of `service` report healthy (Docker's health check)."""
    start = time.monotonic()
    while time.monotonic() - start < within:
        ids = containers(service)
        if len(ids) >= count and all(container_health(c) == "healthy" for c in ids):
            return time.monotonic() - start
        if any(container_health(c) == "unhealthy" for c in ids):
            break
        time.sleep(2)
    logs = compose("logs", "--tail", "60", service, check=False).stdout
    raise AssertionError(f"{service} not healthy within {within:.0f} s:\n{logs}")
