"""The adapters the engine holds now: loaded at start (`--lora`) or at run time (the admin
routes), at most `--max-loras` of them, each with an id of its own load.

Every surface sees it through `inference.served_models.ServedModels`, which resolves a
`model` a client gives (the base model, an adapter, or a 404) and routes a translation's pair
and domain (routing.py) to the most specific adapter.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from translate_server.adapters.routing import choose
from translate_server.adapters.spec import AdapterSpec, AdapterSpecError, parse_lora_option
from translate_server.errors import (
    AdapterConflictError,
    AdapterNotFoundError,
    InvalidRequestError,
)
from translate_server.inference.engine import Engine, EngineRejectedError, LoraAdapter
from translate_server.settings import EngineSettings, SettingsError


class AdapterCatalog:
    def __init__(
        self,
        engine: Engine,
        base_model: str,
        *,
        max_loras: int,
        max_rank: int,
    ) -> None:
        self.engine = engine
        self.base_model = base_model
        self.max_loras = max_loras
        self.max_rank = max_rank
        self._loaded: dict[str, tuple[AdapterSpec, LoraAdapter]] = {}
        self._ids = itertools.count(1)  # vLLM wants ids > 0, unique per adapter load

    def __len__(self) -> int:
        return len(self._loaded)

    @property
    def specs(self) -> list[AdapterSpec]:
        return [spec for spec, _ in self._loaded.values()]

    @property
    def names(self) -> list[str]:
        return list(self._loaded)

    async def load_all(self, specs: Sequence[AdapterSpec]) -> None:
        """The configured adapters, at start: any that fails stops the start."""
        for spec in specs:
            try:
                await self.load(spec)
            except (AdapterConflictError, InvalidRequestError) as exc:
                raise AdapterSpecError(f"--lora {spec.name}: {exc.message}") from None

    async def load(self, spec: AdapterSpec) -> LoraAdapter:
        if spec.name == self.base_model or spec.name in self._loaded:
            raise AdapterConflictError(
                f"The name `{spec.name}` is taken; unload that adapter first.", param="name"
            )
        if len(self._loaded) >= self.max_loras:
            raise AdapterConflictError(
                f"This server holds at most {self.max_loras} adapters (--max-loras); "
                "unload one first.",
                code="too_many_adapters",
            )
        if spec.rank > self.max_rank:
            raise InvalidRequestError(
                f"The adapter has rank {spec.rank}; this server takes at most "
                f"{self.max_rank} (--max-lora-rank).",
                param="path",
                code="adapter_rank_too_large",
            )
        adapter = LoraAdapter(spec.name, next(self._ids), spec.path)
        try:
            await self.engine.add_adapter(adapter)
        except EngineRejectedError as exc:
            raise InvalidRequestError(str(exc), param="path", code="adapter_not_loaded") from None
        self._loaded[spec.name] = (spec, adapter)
        return adapter

    async def unload(self, name: str) -> None:
        found = self._loaded.pop(name, None)
        if found is None:
            raise AdapterNotFoundError(f"No adapter `{name}` is loaded.", param="name")
        await self.engine.remove_adapter(found[1])

    def loaded(self, name: str) -> LoraAdapter | None:
        found = self._loaded.get(name)
        return None if found is None else found[1]

    def route(self, source: str, target: str, domain: str | None) -> LoraAdapter | None:
        """The most specific adapter serving the pair and domain; None: the base model."""
        return choose(self._loaded.values(), source, target, domain)


def serves_adapters(settings: EngineSettings) -> bool:
    """Whether the engine is started for LoRA (engine_args.py decides the same way)."""
    return bool(settings.lora) or settings.enable_lora


def read_configured(settings: EngineSettings) -> list[AdapterSpec]:
    """The `--lora` adapters, read before the engine starts (a bad one stops the start)."""
    try:
        specs = [parse_lora_option(value) for value in settings.lora]
    except AdapterSpecError as exc:
        raise SettingsError(str(exc)) from None
    if len(specs) > settings.max_loras:
        raise SettingsError(f"{len(specs)} adapters given, --max-loras is {settings.max_loras}")
    return specs


async def open_adapters(
    settings: EngineSettings,
    engine: Engine,
    specs: Sequence[AdapterSpec],
) -> AdapterCatalog | None:
    """The catalog, its adapters loaded; None where the engine was not started for LoRA."""
    if not serves_adapters(settings):
        return None
    catalog = AdapterCatalog(
        engine,
        settings.model_name,
        max_loras=settings.max_loras,
        max_rank=settings.max_lora_rank,
    )
    try:
        await catalog.load_all(specs)
    except AdapterSpecError as exc:
        raise SettingsError(str(exc)) from None
    return catalog
