"""Test tiers: every test carries the marker of what it costs, given by the folder it lives in.

A folder is a tier, so a new test file gets its tier by where it is put, and `-m` picks tiers
(`make test-fast` runs those that start no real engine, server process or browser). A module
may add another tier's marker where it needs more than its folder says (a browser test that
also starts the real engine carries `engine` too); selection by exclusion then leaves it out
of both cheaper runs. The markers are registered in pyproject.toml, with `--strict-markers`.

This file sits at the root so that it sees `benchmarks/tests` as well as `tests`.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).parent
# Skips for a missing system package, summed up by tier at the end (and fatal under CI=true).
pytest_plugins = ("tests.support.prerequisites",)

# Folder -> tier. The markers' meanings are in pyproject.toml's `markers`.
TIER_OF_FOLDER = {
    "tests/unit": "unit",
    "tests/integration": "integration",
    "tests/deploy": "deploy",
    "tests/soak": "soak",
    "tests/process": "process",
    "tests/browser": "browser",
    "tests/engine": "engine",
    "tests/scale": "scale",
    "tests/postgres": "postgres",
    "tests/docker": "docker",
    # The benchmarks' own arithmetic and apps, over engine doubles, in-process.
    "benchmarks/tests": "unit",
}
TIERS = frozenset(TIER_OF_FOLDER.values())


def tier_of(path: Path) -> str | None:
    try:
        relative = path.resolve().relative_to(ROOT).as_posix()
    except ValueError:  # outside the checkout
        return None
    return next(
        (tier for folder, tier in TIER_OF_FOLDER.items() if relative.startswith(folder + "/")), None
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        tier = tier_of(item.path)
        if tier is None:
            raise pytest.UsageError(
                f"{item.nodeid}: a test lives in a tier's folder ({', '.join(TIER_OF_FOLDER)}); "
                "move it to the one that says what it costs"
            )
        item.add_marker(tier)


# Every core and no engine binding, as the session began: a test that starts the real engine
# in this process places it (`--cpu-placement split` pins the process to its last core and sets
# `VLLM_CPU_OMP_THREADS_BIND`), and every later test, and each server it starts, would inherit
# one core and that binding.
_SESSION_CORES = os.sched_getaffinity(0)
_SESSION_BIND = os.environ.get("VLLM_CPU_OMP_THREADS_BIND")


@pytest.fixture(autouse=True)
def _cores_and_engine_binding_as_the_session_began() -> Iterator[None]:
    yield
    if os.sched_getaffinity(0) != _SESSION_CORES:
        for task in os.listdir("/proc/self/task"):
            with contextlib.suppress(OSError):  # a thread that ended meanwhile
                os.sched_setaffinity(int(task), _SESSION_CORES)
    if _SESSION_BIND is None:
        os.environ.pop("VLLM_CPU_OMP_THREADS_BIND", None)
    else:
        os.environ["VLLM_CPU_OMP_THREADS_BIND"] = _SESSION_BIND
