"""`make lint`'s size limits (tools/size_limits.py): a function over 60 lines or a module over
400 in src/ is reported unless pyproject.toml names it with a reason; an allowance without a
reason, or one nothing needs any more, is reported too; and the checkout keeps the limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools import size_limits

ROOT = Path(__file__).parents[2]


def function(name: str, lines: int, indent: str = "") -> str:
    """A function of exactly `lines` lines, its `def` and decorator's line apart."""
    body = "".join(f"{indent}    x = {i}\n" for i in range(lines - 1))
    return f"{indent}@staticmethod\n{indent}def {name}() -> None:\n{body}"


def checkout(tmp_path: Path, files: dict[str, str], allowed: str = "") -> Path:
    for name, text in files.items():
        path = tmp_path / "src" / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (tmp_path / "pyproject.toml").write_text(f"[tool.translate-server.size-limits]\n{allowed}")
    return tmp_path


def problems(root: Path) -> list[str]:
    return size_limits.problems(root, size_limits.allowlist(root))


def test_a_function_over_60_lines_is_reported_with_its_dotted_name(tmp_path: Path) -> None:
    root = checkout(
        tmp_path,
        {
            "ok.py": function("fits", 60),
            "long.py": "class Thing:\n" + function("method", 61, "    "),
        },
    )
    assert problems(root) == ["src/pkg/long.py: function Thing.method has 61 lines (at most 60)"]


def test_a_module_over_400_lines_is_reported(tmp_path: Path) -> None:
    root = checkout(tmp_path, {"ok.py": "x = 1\n" * 400, "long.py": "x = 1\n" * 401})
    assert problems(root) == ["src/pkg/long.py: module has 401 lines (at most 400)"]


def test_what_the_allowlist_names_with_a_reason_is_not_reported(tmp_path: Path) -> None:
    root = checkout(
        tmp_path,
        {"table.py": "x = 1\n" * 401, "machine.py": function("step", 70)},
        '"src/pkg/table.py" = "one table, clearer whole"\n'
        '"src/pkg/machine.py:step" = "a state machine read top to bottom"\n',
    )
    assert problems(root) == []


def test_an_allowance_needs_a_reason_and_a_thing_still_over(tmp_path: Path) -> None:
    root = checkout(
        tmp_path,
        {"table.py": "x = 1\n" * 401, "short.py": function("step", 10)},
        '"src/pkg/table.py" = ""\n"src/pkg/short.py:step" = "was long once"\n',
    )
    assert problems(root) == [
        "src/pkg/table.py: allowed without a reason",
        "src/pkg/short.py:step: allowed, but within the limits now",
    ]


def test_the_check_fails_the_build_and_says_how_to_fix_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = checkout(tmp_path, {"long.py": "x = 1\n" * 401})
    assert size_limits.main([str(root)]) == 1
    assert "split along a concept's seam" in capsys.readouterr().out
    assert size_limits.main([str(checkout(tmp_path, {"long.py": "x = 1\n"}))]) == 0


def test_the_checkout_keeps_the_limits() -> None:
    assert problems(ROOT) == []
