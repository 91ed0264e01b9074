"""`translate-server accounts|keys ...` over an SQLite data folder: a key printed once, found
by its prefix afterwards, limits merged flag by flag, and a mistake an exit status of 1."""

from __future__ import annotations

from pathlib import Path

import pytest

from translate_server.cli import main


def run(capsys: pytest.CaptureFixture[str], folder: Path, *argv: str) -> tuple[int, list[str]]:
    status = main([*argv, "--model-cache-dir", str(folder)])
    lines = [
        line for line in capsys.readouterr().out.splitlines() if "database_migrated" not in line
    ]
    return status, lines


def test_a_team_its_key_and_their_limits(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert (
        run(capsys, tmp_path, "accounts", "create", "team-a", "--characters-per-month", "500000")[0]
        == 0
    )
    status, lines = run(
        capsys, tmp_path, "keys", "create", "--account", "team-a", "--name", "ci",
        "--scope", "translate", "--requests-per-minute", "60",
    )  # fmt: skip
    key = lines[0]
    assert status == 0 and key.startswith("ts_")
    prefix = key[:15]
    _, listed = run(capsys, tmp_path, "keys", "list")
    assert len(listed) == 1 and listed[0].startswith(prefix) and key not in listed[0]
    assert "scopes=translate" in listed[0] and "requests_per_minute=60" in listed[0]

    _, changed = run(
        capsys, tmp_path, "accounts", "set-limits", "team-a", "--requests-per-minute", "120"
    )
    assert "requests_per_minute=120,characters_per_month=500000" in changed[0]
    _, changed = run(
        capsys, tmp_path, "keys", "set-limits", prefix, "--requests-per-minute", "none"
    )
    assert "limits=-" in changed[0]

    status, rotated = run(capsys, tmp_path, "keys", "rotate", prefix, "--grace", "1h")
    assert status == 0 and rotated[0].startswith("ts_") and rotated[0] != key
    assert "status=revoked" in run(capsys, tmp_path, "keys", "revoke", key)[1][0]
    status, refused = run(capsys, tmp_path, "keys", "revoke", "ts_000000000000")
    assert status == 1 and "No key" in refused[0]
