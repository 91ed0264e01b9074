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
    "translate-server-local/postgres:15",
]
# First start prepares Gemma 3 270M from its wheels (about 50 s) before the engine starts.
HEALTHY_WITHIN = float(os.environ.get("DOCKER_TIER_HEALTHY_WITHIN", "600"))
FIGURES: dict[str, float | str] = {}


def run(
    *args: str, timeout: float = 600, check: bool = True, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """`args` from the repository's root; `env` adds to this process's environment (a
    variable set in the shell, as a user would). The stacks see no other `TRANSLATE_*`
    variable: compose passes every one through, and neither the shell's settings nor the
    test run's own (its stores' paths, tests/conftest.py) belong in a container."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("TRANSLATE_")}
    done = subprocess.run(
        args,
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**environment, **(env or {})},
    )
    if check and done.returncode != 0:
        raise AssertionError(
            f"{' '.join(args)} exited {done.returncode}:\n"
            f"{done.stdout[-2000:]}{done.stderr[-2000:]}"
        )
    return done


# The stack as docker-compose.yml describes it, on the local images (compose.local.yml), with
# the tier's settings in an env file: the `.env` a user writes, at a path of the tier's own.
PLAIN_FILES = ("docker-compose.yml", "deploy/docker/compose.local.yml")
SCALE_FILES = (
    "docker-compose.yml",
    "docker-compose.scale.yml",
    "deploy/docker/compose.local.yml",
    "deploy/docker/compose.local-scale.yml",
    "tests/docker/compose.tier-scale.yml",
)
ENV_FILE = ROOT / ".docker-tier" / "env"
ADMIN_KEY = "docker-tier-admin"  # two of the settings the env file gives the server
MAX_TEXT_CHARS = 5000
# The servers' request deadline, and the clients' wait, longer: a slow request is answered
# (or refused with a 504) by the server, never given up by the client.
REQUEST_TIMEOUT = 300
CLIENT_TIMEOUT = REQUEST_TIMEOUT + 30
SERVICE = "translate-server"


def compose(
    *args: str,
    files: tuple[str, ...] = PLAIN_FILES,
    timeout: float = 900,
    check: bool = True,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    options = [item for file in files for item in ("-f", file)]
    if ENV_FILE.exists():
        options += ["--env-file", str(ENV_FILE)]
    return run(
        "docker", "compose", "-p", PROJECT, *options, *args, timeout=timeout, check=check, env=env
    )


def container_health(container: str) -> str:
    state = run("docker", "inspect", "--format", "{{.State.Health.Status}}", container, check=False)
    return state.stdout.strip() or "gone"


def container_failed(container: str) -> bool:
    """The server has exited (or is being restarted after exiting): it is not starting. An
    `unhealthy` one that still runs may yet become healthy: the image's start period (10
    minutes) can run out on a host busy with other work before a first start is done."""
    state = run("docker", "inspect", "--format", "{{.State.Status}}", container, check=False)
    return state.stdout.strip() in ("", "exited", "dead", "restarting")


def containers(service: str = SERVICE, files: tuple[str, ...] = PLAIN_FILES) -> list[str]:
    listed = compose("ps", "-q", service, files=files, check=False)
    return listed.stdout.split()


def wait_healthy(
    service: str = SERVICE,
    count: int = 1,
    within: float = HEALTHY_WITHIN,
    files: tuple[str, ...] = PLAIN_FILES,
) -> float:
    """Seconds until `count` containers of `service` report healthy (Docker's health check)."""
    start = time.monotonic()
    while time.monotonic() - start < within:
        ids = containers(service, files)
        if len(ids) >= count and all(container_health(c) == "healthy" for c in ids):
            return time.monotonic() - start
        if any(container_failed(c) for c in ids):
            break
        time.sleep(2)
    logs = compose("logs", "--tail", "60", service, files=files, check=False).stdout
    raise AssertionError(f"{service} not healthy within {within:.0f} s:\n{logs}")
