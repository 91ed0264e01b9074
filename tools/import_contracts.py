"""Import contracts that import-linter's own types cannot say, run by `lint-imports` like the
others (pyproject.toml's `contract_types`).

`routes_stay_home`: no module imports another domain's routes module. A domain is a package
that registers itself (it holds a `domain` module: `documents`, `compat.deepl`); its routes
modules are those named `routes` or ending in `_routes`, anywhere in it. What two domains'
routes both need belongs where both may import it (`documents.route_helpers`, `http`), never
in either's routes, so that a surface's routes change without breaking another surface.
"""

from __future__ import annotations

from dataclasses import dataclass

from grimp import ImportGraph
from importlinter.application import output
from importlinter.domain import fields
from importlinter.domain.contract import Contract, ContractCheck


@dataclass(frozen=True, slots=True)
class Trespass:
    importer: str
    imported: str
    lines: tuple[int, ...]

    def __str__(self) -> str:
        where = ", ".join(f"l.{line}" for line in self.lines)
        return f"{self.importer} -> {self.imported} ({where})"


def is_routes(module: str) -> bool:
    last = module.rsplit(".", 1)[-1]
    return last == "routes" or last.endswith("_routes")


def domains(graph: ImportGraph, container: str) -> list[str]:
    """The packages under `container` that register themselves (hold a `domain` module),
    the longest first so that a module's own domain is the first that holds it."""
    found = {
        module.rsplit(".", 1)[0]
        for module in graph.modules
        if module.startswith(f"{container}.") and module.rsplit(".", 1)[-1] == "domain"
    }
    return sorted(found, key=lambda name: (-name.count("."), name))


def domain_of(module: str, packages: list[str]) -> str | None:
    return next((p for p in packages if module == p or module.startswith(f"{p}.")), None)


def trespasses(graph: ImportGraph, container: str) -> list[Trespass]:
    """Each import of a domain's routes module from outside that domain."""
    packages = domains(graph, container)
    found = []
    for imported in sorted(graph.modules):
        home = domain_of(imported, packages)
        if home is None or not is_routes(imported):
            continue
        for importer in sorted(graph.find_modules_that_directly_import(imported)):
            if domain_of(importer, packages) != home:
                details = graph.get_import_details(importer=importer, imported=imported)
                lines = tuple(sorted({detail["line_number"] for detail in details}))
                found.append(Trespass(importer, imported, lines))
    return found


class RoutesStayHomeContract(Contract):
    """No module imports a routes module of a domain it is not in."""

    type_name = "routes_stay_home"

    container = fields.StringField()

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        found = trespasses(graph, str(self.container))
        return ContractCheck(kept=not found, metadata={"trespasses": [str(t) for t in found]})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for line in check.metadata["trespasses"]:
            output.print_error(line, bold=False)
            output.new_line()
        output.print(
            "Move what both sides need out of the routes module, where both may import it."
        )
