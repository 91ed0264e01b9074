"""`python -m benchmarks`: every subcommand's options parse (a clash between two of them
breaks the whole command before it runs)."""

from __future__ import annotations

import pytest

from benchmarks.__main__ import main


@pytest.mark.parametrize(
    ("command", "option"),
    [
        ("compare", "--arms"),
        ("http-layer", "--apps"),
        ("ceiling", "--vllm-model"),
        ("adapters", "--de-adapter"),
    ],
)
def test_each_subcommand_parses_its_options(command: str, option: str, capsys) -> None:
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    assert option in capsys.readouterr().out
