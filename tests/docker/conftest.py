"""The docker tier: the real images built, the real stack run with `docker compose`.

Runs only when asked for (`pytest -m docker`, `make test-docker`), and skips, saying why, where
no Docker daemon answers or `docker compose` (v2) is missing. The stack runs on the local
images of deploy/docker/local-images.sh (Debian packages only: no registry but Debian's and
PyPI is needed), through deploy/docker/compose.local.yml; `make test-docker` makes them.
Figures (build time, image size, first start) are printed and written to
$DOCKER_TIER_REPORT (default: .docker-tier/figures.json).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.support.compose_stack import (
    ADMIN_KEY,
    CLIENT_TIMEOUT,
    ENV_FILE,
    FIGURES,
    IMAGE,
    INSTRUCT,
    LOCAL_IMAGES,
    MAX_TEXT_CHARS,
    MODEL_VOLUME,
    PLAIN,
    REQUEST_TIMEOUT,
    ROOT,
    SCALE,
    STACKS,
    run,
)
from tests.support.prerequisites import prerequisite_reason


def why_docker_cannot_run() -> str | None:
    # What `make test-docker`'s set-up could not have (Docker, compose, the base images, a
    # container that reaches PyPI): the machine's lack, not the stack's fault.
    setup_failed = ROOT / ".docker-tier" / "setup-failed"
    if setup_failed.exists():
        return f"docker tier set-up: {setup_failed.read_text().strip()}"
    return _why_docker_cannot_run()


def _why_docker_cannot_run() -> str | None:
    try:
        info = run("docker", "info", "--format", "{{.ServerVersion}}", timeout=30, check=False)
    except (FileNotFoundError, subprocess.TimeoutExpired) as exc:
        return f"no docker client: {exc}"
    if info.returncode != 0:
        return f"no Docker daemon answers: {info.stderr.strip()[:200]}"
    version = run("docker", "compose", "version", "--short", timeout=30, check=False)
    if version.returncode != 0:
        return "`docker compose` (v2) is missing"
    missing = [
        image
        for image in LOCAL_IMAGES
        if run("docker", "image", "inspect", image, check=False).returncode != 0
    ]
    if missing:
        return (
            f"local base images missing ({', '.join(missing)}): run deploy/docker/local-images.sh"
        )
    return None


def pytest_collection_modifyitems(config, items) -> None:
    docker_items = [item for item in items if item.get_closest_marker("docker")]
    if not docker_items:
        return
    if "docker" not in (config.getoption("markexpr") or "") or "not docker" in config.getoption(
        "markexpr"
    ):
        reason = "the docker tier runs only when asked for: pytest -m docker (make test-docker)"
    else:
        missing = why_docker_cannot_run()
        reason = missing and prerequisite_reason("docker", missing)
    if reason:
        for item in docker_items:
            item.add_marker(pytest.mark.skip(reason=reason))


def pytest_terminal_summary(terminalreporter) -> None:
    if FIGURES:
        report = Path(os.environ.get("DOCKER_TIER_REPORT", ROOT / ".docker-tier" / "figures.json"))
        report.parent.mkdir(parents=True, exist_ok=True)
        report.write_text(json.dumps(FIGURES, indent=2) + "\n")
        terminalreporter.write_sep("-", f"docker tier figures (also in {report})")
        for name, value in FIGURES.items():
            terminalreporter.write_line(f"{name}: {value}")


@pytest.fixture(scope="session")
def cpu_image() -> str:
    """The CPU image, built from deploy/docker/Dockerfile.cpu on the local Python base
    (docker-tier.sh's `image`; from Docker's layer cache in seconds where `make test` built
    it beside the other tiers)."""
    start = time.monotonic()
    build = run("bash", "tests/docker/docker-tier.sh", "image", timeout=3000, check=False)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    FIGURES["cpu_image_build_s"] = round(time.monotonic() - start, 1)
    size = run("docker", "image", "inspect", "--format", "{{.Size}}", IMAGE).stdout
    FIGURES["cpu_image_size_mb"] = round(int(size) / 1e6)
    return IMAGE


@pytest.fixture(scope="session")
def client() -> httpx.Client:
    with httpx.Client(base_url=f"http://127.0.0.1:{PLAIN.port}", timeout=CLIENT_TIMEOUT) as http:
        yield http


@pytest.fixture(scope="session")
def scale_client() -> httpx.Client:
    with httpx.Client(base_url=f"http://127.0.0.1:{SCALE.port}", timeout=CLIENT_TIMEOUT) as http:
        yield http


@pytest.fixture(scope="session")
def environment() -> None:
    """The tier's `.env`: settings written where a user writes them, which the server must
    see (compose passes every TRANSLATE_* setting through; test_docker_stack.py checks two).
    Each stack's published port is its own, given as a shell variable (which wins over it)."""
    ENV_FILE.parent.mkdir(parents=True, exist_ok=True)
    ENV_FILE.write_text(
        f"TRANSLATE_ADMIN_KEY={ADMIN_KEY}\n"
        f"TRANSLATE_MAX_TEXT_CHARS={MAX_TEXT_CHARS}\n"
        # The CPU engine's KV cache: 1 GiB fits the default model and two replicas on a laptop.
        "VLLM_CPU_KVCACHE_SPACE=1\n"
        # A request's deadline (60 s by default) is a latency promise, which a shared 2-core
        # host cannot keep while replicas start beside the other stacks: the tier checks that
        # no request is lost, and a slow one is not lost.
        f"TRANSLATE_REQUEST_TIMEOUT={REQUEST_TIMEOUT}\n"
    )


SCALE_BEGUN: list[float] = []  # when the scale stack was started (cpu_stack)


@pytest.fixture(scope="session")
def stacks(cpu_image, environment):
    """The plain and the instruction-tuned stacks started together, from nothing: no container,
    no data, no prepared model. Each prepares its own model into the one model volume while
    the other does; docker-compose.scale.yml's stack starts once the default model is
    prepared (`cpu_stack`). Every stack is taken down at the end, healthy or not."""
    for stack in STACKS:
        stack.compose("down", "-v", "--remove-orphans", check=False)
    run("docker", "volume", "rm", "-f", MODEL_VOLUME)
    run("docker", "volume", "create", MODEL_VOLUME)
    start = time.monotonic()
    PLAIN.up()
    INSTRUCT.up()
    try:
        yield start
    finally:
        for stack in STACKS:
            stack.compose("down", "-v", check=False)
        run("docker", "volume", "rm", "-f", MODEL_VOLUME, check=False)


@pytest.fixture(scope="session")
def cpu_stack(stacks):
    """A plain `docker compose up`: the CPU server on the default model, and Prometheus
    (Grafana too where its public image can be pulled). Once it is healthy, the default model
    is prepared, and the scale stack starts beside it."""
    PLAIN.wait_healthy()
    FIGURES["first_start_to_healthy_s"] = round(time.monotonic() - stacks, 1)
    SCALE.up()
    SCALE_BEGUN.append(time.monotonic())
    return PLAIN


@pytest.fixture(scope="session")
def instruct_stack(stacks):
    """`TRANSLATE_MODEL=HuggingFaceTB/SmolLM2-135M-Instruct docker compose up`, begun with the
    plain stack."""
    INSTRUCT.wait_healthy()
    # An upper bound: it started with the plain stack, and is waited for when its tests come.
    FIGURES["instruct_model_first_start_healthy_by_s"] = round(time.monotonic() - stacks, 1)
    return INSTRUCT


@pytest.fixture(scope="session")
def scale_stack(cpu_stack):
    """`docker compose -f docker-compose.yml -f docker-compose.scale.yml up`: two replicas
    behind HAProxy, begun when the plain stack became healthy."""
    SCALE.wait_healthy(count=2)
    # An upper bound too: it started when the plain stack became healthy.
    FIGURES["scale_start_healthy_by_s"] = round(time.monotonic() - SCALE_BEGUN[0], 1)
    return SCALE
