"""Imports point one way, as ARCHITECTURE.md draws them: the import contracts in pyproject.toml
(layers, the compatible APIs' independence, no domain importing another's routes, no circle
among any package's modules) hold, the drawing is the contract's own layers, and no domain
module but its routes speaks HTTP."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import pytest

import translate_server
from tools import import_contracts

PACKAGE = Path(translate_server.__file__).parent
ROOT = Path(__file__).parents[2]
DOMAINS = (
    "translation",
    "openai_api",
    "compat",
    "documents",
    "memory",
    "ui",
    "adapters",
    "glossaries",
)


def imported(path: Path) -> set[str]:
    """Every module `path` imports, at run time or for type checking alone."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_the_import_contracts_hold() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run(
        [str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout[-4000:]
    assert "0 broken" in done.stdout


def contract_layers() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (layers,) = [c for c in config["contracts"] if c["id"] == "layers"]
    return [" | ".join(name.strip() for name in layer.split("|")) for layer in layers["layers"]]


def drawn_layers() -> list[str]:
    text = (ROOT / "ARCHITECTURE.md").read_text()
    section = text[text.index("### Dependencies point one way") :]
    block = re.search(r"```\n(.*?)```", section, re.S)
    assert block is not None, "ARCHITECTURE.md has no drawing of the layers"
    return [line.strip() for line in block.group(1).splitlines() if line.strip()]


def test_architecture_draws_the_contract_s_layers() -> None:
    assert drawn_layers() == contract_layers()


def test_every_package_is_in_a_layer() -> None:
    named = {part.strip() for layer in contract_layers() for part in layer.split("|")}
    packages = {
        path.stem if path.is_file() else path.name
        for path in PACKAGE.iterdir()
        if (path.suffix == ".py" and path.stem != "__init__")
        or (path.is_dir() and (path / "__init__.py").exists())
    }
    assert packages == named


def test_the_check_sees_an_import_for_type_checking_alone(tmp_path: Path) -> None:
    module = tmp_path / "module.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from translate_server.translation.protocol import TranslateRequest\n"
    )
    assert "translate_server.translation.protocol" in imported(module)


# Where a domain speaks HTTP besides its routes: compat's route helpers (bodies and keys as
# those clients send them), and what every surface's document routes share (the upload form,
# the file answered), which their routes import instead of one another's.
SPEAKING_HTTP = {"compat/common.py", "documents/route_helpers.py"}


@pytest.mark.parametrize("domain", DOMAINS)
def test_a_domain_speaks_http_only_in_its_routes(domain: str) -> None:
    """Services take and give plain values and typed chunks; reading requests, writing
    events and rendering errors is for the routes and `http/`."""
    found = {
        f"{path.relative_to(PACKAGE)}: {name}"
        for path in (PACKAGE / domain).rglob("*.py")
        # routes.py, or a domain's routes of one kind (compat/deepl/style_routes.py)
        if not path.name.endswith("routes.py")
        and str(path.relative_to(PACKAGE)) not in SPEAKING_HTTP
        for name in imported(path)
        if name.split(".")[0] == "litestar" or name.split(".")[:2] == ["translate_server", "http"]
    }
    assert found == set()


def routes_graph(*imports: tuple[str, str]) -> grimp.ImportGraph:
    """Two domains, `pkg.a` and `pkg.b`, each with its routes, and the imports given."""
    graph = grimp.ImportGraph()
    for module in ("pkg", "pkg.app", "pkg.a.domain", "pkg.a.routes", "pkg.a.file_routes"):
        graph.add_module(module)
    for module in ("pkg.a", "pkg.b", "pkg.b.domain", "pkg.b.routes", "pkg.b.helpers"):
        graph.add_module(module)
    for importer, imported in imports:
        graph.add_import(importer=importer, imported=imported, line_number=3, line_contents="")
    return graph


def test_the_routes_contract_refuses_another_domain_s_routes() -> None:
    graph = routes_graph(
        ("pkg.a.domain", "pkg.a.routes"),  # its own: fine
        ("pkg.a.routes", "pkg.a.file_routes"),
        ("pkg.b.routes", "pkg.b.helpers"),
        ("pkg.a.file_routes", "pkg.b.helpers"),  # another domain's helpers: fine
        ("pkg.b.routes", "pkg.a.file_routes"),
        ("pkg.app", "pkg.b.routes"),
    )
    found = [str(t) for t in import_contracts.trespasses(graph, "pkg")]
    assert found == ["pkg.b.routes -> pkg.a.file_routes (l.3)", "pkg.app -> pkg.b.routes (l.3)"]
