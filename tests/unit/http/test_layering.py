"""Imports point one way: `http/` (speaking HTTP) and `observability/` (the request's record,
metrics and spans) know no domain; the domains and the composition root use them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import translate_server

PACKAGE = Path(translate_server.__file__).parent
DOMAINS = (
    "translation",
    "openai_api",
    "compat",
    "documents",
    "memory",
    "ui",
    "quality",
    "adapters",
)
# The composition root, what it opens and the services container it fills name every domain.
ABOVE = ("app", "lifetime", "services", "cli", "server")
DOWNSTREAM = [[name] for name in (*DOMAINS, *ABOVE)]


def imported(path: Path) -> set[str]:
    """Every module `path` imports, at run time or for type checking alone."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


@pytest.mark.parametrize("layer", ["http", "observability"])
def test_the_layer_imports_no_domain(layer: str) -> None:
    found = {
        f"{path.relative_to(PACKAGE)}: {name}"
        for path in (PACKAGE / layer).rglob("*.py")
        for name in imported(path)
        if name.split(".")[0] == "translate_server" and name.split(".")[1:2] in DOWNSTREAM
    }
    assert found == set()


def test_the_check_sees_an_import_of_a_domain(tmp_path: Path) -> None:
    module = tmp_path / "module.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from translate_server.translation.protocol import TranslateRequest\n"
    )
    assert "translate_server.translation.protocol" in imported(module)


# Where a domain speaks HTTP besides its routes: compat's route helpers (bodies and keys as
# those clients send them) and its document routes.
SPEAKING_HTTP = {"compat/common.py", "compat/documents.py"}


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
