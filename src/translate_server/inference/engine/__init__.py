"""The engine boundary: a narrow protocol the service depends on, and its vLLM adapter."""

from translate_server.inference.engine.protocol import (
    ChatMessage,
    Engine,
    EngineDeadError,
    EngineInfo,
    EngineOutput,
    EngineRejectedError,
    GenerationStep,
    LoraAdapter,
    PromptTooLongError,
    SamplingOptions,
    StructuredOutput,
    TokenLogprob,
)
from translate_server.observability.engine_figures import EngineTimings

__all__ = [
    "ChatMessage",
    "Engine",
    "EngineDeadError",
    "EngineInfo",
    "EngineOutput",
    "EngineRejectedError",
    "EngineTimings",
    "GenerationStep",
    "LoraAdapter",
    "PromptTooLongError",
    "SamplingOptions",
    "StructuredOutput",
    "TokenLogprob",
]
