"""The docker tier's helpers: compose with the local images, health waits, figures."""

from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import dataclass, field
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


# The stacks as the compose files describe them, on the local images (compose.local.yml), with
# the tier's settings in an env file: the `.env` a user writes, at a path of the tier's own.
# tests/docker/compose.tier.yml is the tier's own: one prepared-model volume for every stack,
# and health probed often enough that no stack waits long for Docker to notice it is up.
TIER_FILE = "tests/docker/compose.tier.yml"
PLAIN_FILES = ("docker-compose.yml", "deploy/docker/compose.local.yml", TIER_FILE)
SCALE_FILES = (
    "docker-compose.yml",
    "docker-compose.scale.yml",
    "deploy/docker/compose.local.yml",
    "deploy/docker/compose.local-scale.yml",
    TIER_FILE,
    "tests/docker/compose.tier-scale.yml",
)
# compose.tier.yml's external volume: each model is prepared once, whichever stack starts it.
MODEL_VOLUME = "translate-server-tier-models"
ENV_FILE = ROOT / ".docker-tier" / "env"
ADMIN_KEY = "docker-tier-admin"  # two of the settings the env file gives the server
MAX_TEXT_CHARS = 5000
# The servers' request deadline, and the clients' wait, longer: a slow request is answered
# (or refused with a 504) by the server, never given up by the client.
REQUEST_TIMEOUT = 300
CLIENT_TIMEOUT = REQUEST_TIMEOUT + 30
SERVICE = "translate-server"


@dataclass(frozen=True)
class Stack:
    """One compose project: its files, the port it publishes the API on, the variables a user
    would set in the shell, and the services `up` starts (all but a profile's when empty).
    Stacks with projects and ports of their own run side by side."""

    project: str
    files: tuple[str, ...]
    port: int
    shell: dict[str, str] = field(default_factory=dict)
    services: tuple[str, ...] = ()

    def compose(
        self,
        *args: str,
        timeout: float = 900,
        check: bool = True,
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess:
        options = [item for file in self.files for item in ("-f", file)]
        if ENV_FILE.exists():
            options += ["--env-file", str(ENV_FILE)]
        shell = {"TRANSLATE_PUBLISH_PORT": str(self.port), **self.shell, **(env or {})}
        return run(
            "docker",
            "compose",
            "-p",
            self.project,
            *options,
            *args,
            timeout=timeout,
            check=check,
            env=shell,
        )

    def up(self) -> None:
        """`up -d`: returns once the containers run (and what they wait for is healthy)."""
        self.compose("up", "-d", *self.services)

    def containers(self, service: str = SERVICE) -> list[str]:
        return self.compose("ps", "-q", service, check=False).stdout.split()

    def wait_healthy(
        self, service: str = SERVICE, count: int = 1, within: float = HEALTHY_WITHIN
    ) -> float:
        """Seconds until `count` containers of `service` report healthy (Docker's check)."""
        start = time.monotonic()
        while time.monotonic() - start < within:
            ids = self.containers(service)
            if len(ids) >= count and all(container_health(c) == "healthy" for c in ids):
                return time.monotonic() - start
            if any(container_failed(c) for c in ids):
                break
            time.sleep(1)
        logs = self.compose("logs", "--tail", "60", service, check=False).stdout
        raise AssertionError(f"{service} not healthy within {within:.0f} s:\n{logs}")


def container_state(container: str) -> dict:
    """`docker inspect`'s State, and the RestartCount beside it."""
    shown = run(
        "docker",
        "inspect",
        "--format",
        '{"state": {{json .State}}, "restarts": {{.RestartCount}}}',
        container,
    )
    return json.loads(shown.stdout)


def container_health(container: str) -> str:
    state = run("docker", "inspect", "--format", "{{.State.Health.Status}}", container, check=False)
    return state.stdout.strip() or "gone"


def container_failed(container: str) -> bool:
    """The server has exited (or is being restarted after exiting): it is not starting. An
    `unhealthy` one that still runs may yet become healthy: the image's start period (10
    minutes) can run out on a host busy with other work before a first start is done."""
    state = run("docker", "inspect", "--format", "{{.State.Status}}", container, check=False)
    return state.stdout.strip() in ("", "exited", "dead", "restarting")


INSTRUCT_MODEL = "HuggingFaceTB/SmolLM2-135M-Instruct"
# The three stacks of the tier, each a project with its own port, so that they run side by
# side: a plain `docker compose up`; `TRANSLATE_MODEL=<the instruction-tuned model> docker
# compose up` (its server alone: Prometheus is the plain stack's); docker-compose.scale.yml's
# replicas behind HAProxy (the router and what it needs).
PLAIN = Stack("translate-server-test", PLAIN_FILES, PORT)
INSTRUCT = Stack(
    "translate-server-test-instruct",
    PLAIN_FILES,
    PORT + 1,
    shell={"TRANSLATE_MODEL": INSTRUCT_MODEL},
    services=(SERVICE,),
)
SCALE = Stack("translate-server-test-scale", SCALE_FILES, PORT + 2, services=("router",))
STACKS = (PLAIN, INSTRUCT, SCALE)
