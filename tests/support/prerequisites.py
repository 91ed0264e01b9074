"""Tests that cannot run for want of something the machine lacks (a system package such as
Chromium, HAProxy, PostgreSQL or Docker) skip through `missing_prerequisite`, naming their tier
and why; other skips (a second core, a tier not asked for) stay plain `pytest.skip`.

A pytest plugin too (the root conftest.py loads it): the run ends by listing each tier that
skipped for a missing prerequisite, how many tests and why; and with `CI=true` such a skip
fails the run, since CI installs them all (`make test-deps`) and a skip there hides a fault.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Mapping
from typing import NoReturn

import pytest

INSTALL = "run `make test-deps`"
_REASON = re.compile(
    r"missing prerequisite \[(?P<tier>[\w-]+)\]: (?P<why>.+): " + re.escape(INSTALL), re.DOTALL
)


def prerequisite_reason(tier: str, why: str) -> str:
    """A skip reason the summary and CI recognize (for `skipif(..., reason=...)`)."""
    return f"missing prerequisite [{tier}]: {why}: {INSTALL}"


def missing_prerequisite(tier: str, why: str) -> NoReturn:
    pytest.skip(prerequisite_reason(tier, why))


def in_ci(environ: Mapping[str, str] = os.environ) -> bool:
    return environ.get("CI", "").strip().lower() in ("1", "true", "yes")


@pytest.hookimpl
def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(SkippedTiers(), "skipped-tiers")


class SkippedTiers:
    """Tier -> why -> how many tests skipped for it, gathered from the run's reports."""

    def __init__(self) -> None:
        self.tiers: dict[str, Counter[str]] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.record(report)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self.record(report)

    def record(self, report: pytest.TestReport | pytest.CollectReport) -> None:
        if not report.skipped or not isinstance(report.longrepr, tuple):
            return
        found = _REASON.search(str(report.longrepr[2]))
        if found:
            self.tiers.setdefault(found["tier"], Counter())[found["why"].strip()] += 1

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if in_ci() and self.tiers and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.tiers:
            return
        terminalreporter.write_sep("=", "skipped tiers: a prerequisite is missing")
        for line in summary_lines(self.tiers):
            terminalreporter.write_line(line)
        if in_ci():
            terminalreporter.write_line(
                "CI=true: a tier skipped for a missing prerequisite fails the run",
                red=True,
                bold=True,
            )


def summary_lines(tiers: dict[str, Counter[str]]) -> list[str]:
    """`browser (30 tests: no Chromium to drive: run `make test-deps`)`, a line per tier."""
    lines = []
    for tier, reasons in tiers.items():
        count = sum(reasons.values())
        whys = "; ".join(reasons)
        lines.append(f"{tier} ({count} test{'s' * (count != 1)}: {whys}: {INSTALL})")
    return lines
