"""`make test`'s lanes (tests/lanes.py) run every tier but docker, each in one lane only, and
give their servers ports that no other lane picks."""

from __future__ import annotations

import itertools
import os
import sys
from pathlib import Path

import pytest

from tests import lanes
from tests.support import ports

ROOT = Path(__file__).resolve().parents[2]


def _test_folders() -> set[str]:
    found = set()
    for module in [*ROOT.glob("tests/*/**/test_*.py"), *ROOT.glob("benchmarks/tests/test_*.py")]:
        relative = module.relative_to(ROOT).parts
        found.add("/".join(relative[:2]))
    return found


def test_every_tier_but_docker_runs_in_exactly_one_lane() -> None:
    assigned = [folder for folders in lanes.LANES.values() for folder in folders]
    assert len(assigned) == len(set(assigned))
    assert set(assigned) == _test_folders() - {"tests/docker"}


def test_the_lanes_ports_do_not_overlap() -> None:
    ranges = sorted(lane.ports for lane in lanes.lanes())
    for (_, high), (low, _) in itertools.pairwise(ranges):
        assert high <= low


def test_a_lane_picks_its_ports_from_its_own_range(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(lanes.PORTS_VARIABLE, "24000-25500")
    picked = {ports.free_port() for _ in range(50)}
    assert all(24000 <= port < 25500 for port in picked)


def test_a_failed_lane_fails_the_run_and_shows_its_failures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "tests" / "fine"
    folder.mkdir(parents=True)
    (folder / "test_fine.py").write_text("def test_fine():\n    assert True\n")
    broken = tmp_path / "tests" / "broken"
    broken.mkdir()
    (broken / "test_broken.py").write_text("def test_broken():\n    assert 1 == 2, 'lost'\n")
    monkeypatch.setattr(lanes, "ROOT", tmp_path)
    monkeypatch.setattr(lanes, "OUT", tmp_path / ".test-lanes")
    monkeypatch.setattr(lanes, "LANES", {"fine": ("tests/fine",), "broken": ("tests/broken",)})
    # The throwaway folders are not this checkout: none of its conftests (a temporary folder
    # may lie inside the checkout) nor its addopts.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(sys.path))
    isolated = ["-c", os.devnull, f"--rootdir={tmp_path}", f"--confcutdir={tmp_path}"]
    status = lanes.run(["-p", "no:randomly", *isolated])
    shown = capsys.readouterr().out
    assert status != 0
    assert "lane broken failed" in shown and "AssertionError: lost" in shown
    assert "lane fine failed" not in shown
    assert "fine     exit 0" in shown and "1 passed" in shown
