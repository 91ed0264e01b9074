"""What every OpenAI surface's service is built from: the one path into the engine, admission,
the limits, the model name with the fingerprint OpenAI's answers carry, the served models
a request's `model` is resolved against (`inference.served_models`), and the engine priority
its requests carry (0, interactive; a batch's lines run through services of their own at the
document jobs' lower priority)."""

from __future__ import annotations

from translate_server.inference.admission import Admission
from translate_server.inference.engine import LoraAdapter
from translate_server.inference.generation import GenerationService
from translate_server.inference.served_models import ServedModels
from translate_server.openai_api import sampling
from translate_server.settings import LimitSettings


class OpenAIService:
    def __init__(
        self,
        generation: GenerationService,
        admission: Admission,
        limits: LimitSettings,
        model_name: str,
        models: ServedModels | None = None,
        priority: int = 0,
    ) -> None:
        self.generation = generation
        self.admission = admission
        self.limits = limits
        self.model_name = model_name
        self.fingerprint = sampling.system_fingerprint(model_name)
        self.models = models or ServedModels(model_name)
        self.priority = priority

    def adapter(self, model: str | None) -> LoraAdapter | None:
        """The LoRA adapter a request names as `model`; None for the base model (a 404 for
        a model that is neither)."""
        return self.models.named(model)

    def served(self, model: str | None) -> str:
        """The name an answer carries: the base model's or the adapter's."""
        return self.models.name_of(self.adapter(model))
