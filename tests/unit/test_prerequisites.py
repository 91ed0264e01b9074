"""A skip for a missing prerequisite is summed up by tier at the end of the run, and fails the
run under CI=true; other skips do neither (tests/support/prerequisites.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TESTS = """
import pytest
from tests.support.prerequisites import missing_prerequisite, prerequisite_reason

@pytest.mark.parametrize("n", [1, 2, 3])
def test_needs_chromium(n):
    missing_prerequisite("browser", "no Chromium to drive")

@pytest.mark.skipif(True, reason=prerequisite_reason("scale", "haproxy is not installed"))
def test_needs_haproxy():
    pass

def test_needs_two_cores():
    pytest.skip("placement needs two cores")

def test_passes():
    pass
"""
PYTEST = (sys.executable, "-m", "pytest", "-p", "tests.support.prerequisites")
SUMMARY = [
    "browser (3 tests: no Chromium to drive: run `make test-deps`)",
    "scale (1 test: haproxy is not installed: run `make test-deps`)",
]


def run_pytest(folder: Path, tests: str, ci: str | None) -> subprocess.CompletedProcess[str]:
    (folder / "pytest.ini").write_text("[pytest]\n")
    (folder / "test_sample.py").write_text(tests)
    environment = {key: value for key, value in os.environ.items() if key != "CI"}
    environment["PYTHONPATH"] = os.pathsep.join([str(ROOT), environment.get("PYTHONPATH", "")])
    # Only the plugin under test: the installed ones (schemathesis, hypothesis...) take seconds.
    environment["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    if ci is not None:
        environment["CI"] = ci
    return subprocess.run(
        [*PYTEST, "-q", "-p", "no:cacheprovider", str(folder)],
        cwd=folder,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def summary(output: str) -> list[str]:
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if "skipped tiers" in line)
    return [line for line in lines[start + 1 :] if line.startswith(("browser", "scale"))]


def test_the_run_ends_by_listing_each_skipped_tier_and_why(tmp_path: Path) -> None:
    done = run_pytest(tmp_path, TESTS, ci=None)
    assert done.returncode == 0, done.stdout
    assert summary(done.stdout) == SUMMARY
    assert "two cores" not in done.stdout.split("skipped tiers")[1]


@pytest.mark.parametrize("ci", ["true", "1"])
def test_under_ci_a_missing_prerequisite_fails_the_run(tmp_path: Path, ci: str) -> None:
    done = run_pytest(tmp_path, TESTS, ci=ci)
    assert done.returncode == 1, done.stdout
    assert summary(done.stdout) == SUMMARY
    assert "CI=true: a tier skipped for a missing prerequisite fails the run" in done.stdout


def test_under_ci_other_skips_pass(tmp_path: Path) -> None:
    tests = "import pytest\n\ndef test_two_cores():\n    pytest.skip('placement needs two cores')\n"
    done = run_pytest(tmp_path, tests, ci="true")
    assert done.returncode == 0, done.stdout
    assert "skipped tiers" not in done.stdout
