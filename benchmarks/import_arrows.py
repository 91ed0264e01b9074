"""The import arrows of a checkout that go against this checkout's dependency diagram.

    python benchmarks/import_arrows.py [--checkout PATH]

Reads every module of the checkout's `src/translate_server` (imports at module level, inside
functions and for type checking alone alike), and counts the arrows between two top-level
packages where the imported one is not below the importer in the layers of THIS checkout's
pyproject.toml (`layers` contract), and the package cycles. `make lint` enforces zero for this
checkout; pointed at an older commit's worktree, it says how far that one was from the diagram.
"""

from __future__ import annotations

import argparse
import ast
from collections import defaultdict
from pathlib import Path

from benchmarks.request_walk import HERE, layer_ranks, package_of


def modules_of(src: Path) -> dict[str, Path]:
    found = {}
    for path in (src / "translate_server").rglob("*.py"):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def import_edges(modules: dict[str, Path]) -> set[tuple[str, str]]:
    edges = set()
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(
                        [*package.split(".")[: len(package.split(".")) - node.level + 1], base]
                    ).strip(".")
                targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            for target in targets:
                if target in modules and target != name:
                    edges.add((name, target))
    return edges


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, default=HERE)
    args = parser.parse_args(argv)
    ranks = layer_ranks(HERE / "pyproject.toml")
    edges = import_edges(modules_of(args.checkout.resolve() / "src"))
    against: dict[tuple[str, str], int] = defaultdict(int)
    packages: dict[str, set[str]] = defaultdict(set)
    for importer, imported in edges:
        above, below = package_of(importer), package_of(imported)
        if above == below or "." not in imported:
            continue
        packages[above].add(below)
        rank_above, rank_below = ranks.get(above), ranks.get(below)
        if rank_above is None or rank_below is None or rank_below <= rank_above:
            against[(above, below)] += 1
    mutual = {
        tuple(sorted((a, b)))
        for a, imported in list(packages.items())
        for b in imported
        if a in packages.get(b, set())
    }
    cycles = sorted(mutual)
    print(f"checkout: {args.checkout.resolve()}")
    print(f"module import arrows against the layers: {sum(against.values())}")
    print(f"package pairs with such arrows: {len(against)}")
    for (above, below), count in sorted(against.items()):
        print(f"  {above} -> {below}: {count}")
    print(f"packages importing each other: {len(cycles)}")
    for pair in cycles:
        print(f"  {pair[0]} <-> {pair[1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
