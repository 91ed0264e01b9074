"""What every OpenAI surface's service is built from: the one path into the engine, admission,
the limits, the model name with the fingerprint OpenAI's answers carry, and the LoRA adapters
a request may name as its model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from translate_server.inference.admission import Admission
from translate_server.inference.engine import LoraAdapter
from translate_server.inference.generation import GenerationService
from translate_server.inference.request_limits import check_model
from translate_server.openai_api import sampling
from translate_server.settings import LimitSettings

if TYPE_CHECKING:
    from translate_server.adapters.catalog import AdapterCatalog


class OpenAIService:
    def __init__(
        self,
        generation: GenerationService,
        admission: Admission,
        limits: LimitSettings,
        model_name: str,
        adapters: AdapterCatalog | None = None,
    ) -> None:
        self.generation = generation
        self.admission = admission
        self.limits = limits
        self.model_name = model_name
        self.fingerprint = sampling.system_fingerprint(model_name)
        self.adapters = adapters

    def adapter(self, model: str | None) -> LoraAdapter | None:
        """The LoRA adapter a request names as `model`; None for the base model (a 404 for
        a model that is neither)."""
        if self.adapters is None:
            check_model(model, self.model_name)
            return None
        return self.adapters.named(model)

    def served(self, model: str | None) -> str:
        """The name an answer carries: the base model's or the adapter's."""
        adapter = self.adapter(model)
        return self.model_name if adapter is None else adapter.name
