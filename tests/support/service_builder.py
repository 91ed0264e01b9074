"""The services as the app opens them, over the engine double, with no HTTP in between: for
tests of what a service decides itself (what it refuses, what it admits, the engine options it
builds, the chunks and events it yields). One builder is one app's worth of shared parts: the
double, its generation path, one admission and the metrics it publishes to."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import Any, TypeVar

import msgspec

from translate_server.inference.admission import Admission, Ticket
from translate_server.inference.engine import LoraAdapter
from translate_server.inference.generation import GenerationService
from translate_server.inference.served_models import ServedModels
from translate_server.observability.metrics import ServiceMetrics
from translate_server.observability.record import RequestRecord
from translate_server.openai_api.chat.service import ChatService
from translate_server.openai_api.completions.service import CompletionService
from translate_server.openai_api.responses.service import ResponsesService
from translate_server.settings import LimitSettings
from translate_server.translation.guard.findings import TranslationMetrics
from translate_server.translation.planning.cache import CacheMetrics, TranslationCache
from translate_server.translation.service.translation_service import TranslationService

from tests.support.fakes import FakeEngine

T = TypeVar("T")


class StaticAdapters:
    """LoRA adapters loaded once, each serving the language pairs given with it: what model
    resolution reads of the adapters' catalog (`served_models.AdapterSet`)."""

    def __init__(self, serving: Mapping[str, tuple[tuple[str, str], ...]]) -> None:
        self._adapters = {
            name: LoraAdapter(name, number, f"/adapters/{name}")
            for number, name in enumerate(serving, 1)
        }
        self._pairs = dict(serving)

    @property
    def names(self) -> list[str]:
        return list(self._adapters)

    def loaded(self, name: str) -> LoraAdapter | None:
        return self._adapters.get(name)

    def all(self) -> list[LoraAdapter]:
        return list(self._adapters.values())

    def route(self, source: str, target: str, domain: str | None) -> LoraAdapter | None:
        return next(
            (
                self._adapters[name]
                for name, pairs in self._pairs.items()
                if (source, target) in pairs
            ),
            None,
        )


class ServiceBuilder:
    def __init__(
        self,
        engine: FakeEngine | None = None,
        *,
        slots: int = 4,
        queue_limit: int = 4,
        limits: LimitSettings | None = None,
        adapters: StaticAdapters | None = None,
    ) -> None:
        self.engine = engine or FakeEngine()
        self.metrics = ServiceMetrics(parts=(TranslationMetrics, CacheMetrics))
        self.generation = GenerationService(self.engine)
        self.admission = Admission(slots, queue_limit, self.metrics)
        self.limits = limits or LimitSettings()
        self.models = ServedModels(self.engine.info.model, adapters)
        self.cache = TranslationCache(1000, self.metrics.part(CacheMetrics))
        for adapter in adapters.all() if adapters is not None else ():
            self.engine.adapters[adapter.id] = adapter  # loaded, as the catalog loads them

    @property
    def model_name(self) -> str:
        return self.engine.info.model

    def chat(self) -> ChatService:
        return ChatService(
            self.generation, self.admission, self.limits, self.model_name, self.models
        )

    def completions(self) -> CompletionService:
        return CompletionService(
            self.generation, self.admission, self.limits, self.model_name, self.models
        )

    def responses(self) -> ResponsesService:
        return ResponsesService(self.chat())

    def translation(self, **options: Any) -> TranslationService:
        """With the builder's one cache (`cache=None`: none), without the quality guard unless
        asked (`quality_guard=True`): the double answers with the source upper-cased, which
        the guard rightly calls an echo."""
        return TranslationService(
            self.generation,
            self.admission,
            self.limits,
            self.model_name,
            **{"models": self.models, "cache": self.cache, "quality_guard": False, **options},
        )

    def fill_admission(self) -> Ticket:
        """Every place in admission taken, as by requests in flight elsewhere."""
        return self.admission.admit(self.admission.capacity)


def record(route: str = "/test") -> RequestRecord:
    return RequestRecord("request-1", route, "POST")


def deadline(seconds: float = 30.0) -> float:
    """A deadline `seconds` from now, on the event loop's clock (as `deadline_for` gives)."""
    return asyncio.get_running_loop().time() + seconds


async def read_into(items: AsyncIterator[T], received: list[T]) -> None:
    """Every item of a stream into `received` as it comes: what a client got before a
    failure stays there."""
    async for item in items:
        received.append(item)  # noqa: PERF401 - one by one, so a failure keeps what came


def wire(kind: type[T], fields: Mapping[str, Any]) -> T:
    """A request struct as the route decodes it from JSON: defaults and bounds applied."""
    return msgspec.convert(fields, kind)
