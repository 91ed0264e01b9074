"""Functions under 60 lines and modules under 400, in src/: `make lint` fails past either.

A function's lines run from its `def` to its last line (the AST's `end_lineno - lineno + 1`,
decorators left out); a module's are its file's lines. The exceptions are named in
pyproject.toml's `[tool.translate-server.size-limits]`, each with the reason it is clearer whole
(a table, a state machine); an entry whose thing is back under the limit is reported too, so
the list only shrinks.

    python -m tools.size_limits [ROOT]
"""

from __future__ import annotations

import ast
import sys
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 400


@dataclass(frozen=True, slots=True)
class Oversize:
    """A module (`name` "") or a function (`name` its dotted path in the module) over its
    limit."""

    path: str  # relative to the root, with "/"
    name: str
    lines: int
    limit: int

    @property
    def key(self) -> str:
        """How the allowlist names it: `src/x.py` or `src/x.py:Class.method`."""
        return f"{self.path}:{self.name}" if self.name else self.path

    def __str__(self) -> str:
        what = f"function {self.name}" if self.name else "module"
        return f"{self.path}: {what} has {self.lines} lines (at most {self.limit})"


def oversizes(root: Path, source: str = "src") -> Iterator[Oversize]:
    """Every module and function under `root / source` over its limit, in path order."""
    for path in sorted((root / source).rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        if (count := len(text.splitlines())) > MAX_MODULE_LINES:
            yield Oversize(relative, "", count, MAX_MODULE_LINES)
        for name, lines in _functions(ast.parse(text, relative)):
            if lines > MAX_FUNCTION_LINES:
                yield Oversize(relative, name, lines, MAX_FUNCTION_LINES)


def _functions(node: ast.AST, prefix: str = "") -> Iterator[tuple[str, int]]:
    """Each function's dotted name (`Class.method`, `outer.inner`) and its line count."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            name = f"{prefix}{child.name}"
            if not isinstance(child, ast.ClassDef):
                assert child.end_lineno is not None
                yield name, child.end_lineno - child.lineno + 1
            yield from _functions(child, f"{name}.")
        else:
            yield from _functions(child, prefix)


def allowlist(root: Path) -> dict[str, str]:
    """The allowed exceptions, each with its reason, from pyproject.toml."""
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    found: dict[str, str] = (
        config.get("tool", {}).get("translate-server", {}).get("size-limits", {})
    )
    return dict(found)


def problems(root: Path, allowed: Mapping[str, str]) -> list[str]:
    """What fails the check: each oversize not allowed, each allowance without a reason, and
    each allowance that nothing needs any more."""
    found = list(oversizes(root))
    lines = [str(over) for over in found if over.key not in allowed]
    lines += [f"{key}: allowed without a reason" for key, why in allowed.items() if not why]
    needed = {over.key for over in found}
    lines += [f"{key}: allowed, but within the limits now" for key in allowed if key not in needed]
    return lines


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else Path.cwd()
    found = problems(root, allowlist(root))
    for line in found:
        print(line)
    if found:
        print(
            f"functions have at most {MAX_FUNCTION_LINES} lines and modules at most "
            f"{MAX_MODULE_LINES}: split along a concept's seam, or name the exception and why in "
            "pyproject.toml's [tool.translate-server.size-limits]"
        )
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
