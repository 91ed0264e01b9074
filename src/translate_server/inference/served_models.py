"""Which model a request means: the base model, a LoRA adapter it names as `model`, or, for a
translation that names none, the adapter that serves its pair and domain. Every surface asks
here (chat, completions, Responses, /translate, document jobs, /v1/models); an unknown name is
the one 404, listing what is served.

The adapters themselves are another domain's (`adapters.catalog`): this module sees them
through `AdapterSet`, the little it needs.
"""

from __future__ import annotations

from typing import Protocol

from translate_server.errors import ModelNotFoundError
from translate_server.inference.engine import LoraAdapter


class AdapterSet(Protocol):
    """The adapters loaded now, as model resolution reads them."""

    @property
    def names(self) -> list[str]: ...

    def loaded(self, name: str) -> LoraAdapter | None: ...

    def route(self, source: str, target: str, domain: str | None) -> LoraAdapter | None: ...


class ServedModels:
    def __init__(self, base: str, adapters: AdapterSet | None = None) -> None:
        self.base = base
        self.adapters = adapters

    @property
    def serves_adapters(self) -> bool:
        return self.adapters is not None

    @property
    def names(self) -> list[str]:
        """The base model's name first, then each adapter's."""
        return [self.base, *(self.adapters.names if self.adapters is not None else ())]

    def named(self, model: str | None) -> LoraAdapter | None:
        """The adapter a client names as `model`; None for the base model or no name (a 404
        for a name that is neither)."""
        if model is None or model == self.base:
            return None
        found = self.adapters.loaded(model) if self.adapters is not None else None
        if found is None:
            raise ModelNotFoundError(model, "`, `".join(self.names))
        return found

    def route(self, source: str, target: str, domain: str | None) -> LoraAdapter | None:
        """The most specific adapter serving a translation's pair and domain; None: the base
        model."""
        return self.adapters.route(source, target, domain) if self.adapters is not None else None

    def loaded(self, name: str) -> LoraAdapter | None:
        """The adapter loaded under `name` now, if any (no 404: for a job checking that the
        adapter it started with is still there)."""
        return self.adapters.loaded(name) if self.adapters is not None else None

    def name_of(self, adapter: LoraAdapter | None) -> str:
        """The name an answer carries: the base model's or the adapter's."""
        return self.base if adapter is None else adapter.name
