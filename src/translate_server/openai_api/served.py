"""What every OpenAI surface's service is built from: the one path into the engine, admission,
the limits, and the model name with the fingerprint OpenAI's answers carry."""

from __future__ import annotations

from translate_server.inference.admission import Admission
from translate_server.inference.generation import GenerationService
from translate_server.openai_api import sampling
from translate_server.settings import LimitSettings


class OpenAIService:
    def __init__(
        self,
        generation: GenerationService,
        admission: Admission,
        limits: LimitSettings,
        model_name: str,
    ) -> None:
        self.generation = generation
        self.admission = admission
        self.limits = limits
        self.model_name = model_name
        self.fingerprint = sampling.system_fingerprint(model_name)
