"""The engine boundary: a narrow protocol the service depends on, and its vLLM adapter."""

from translate_server.inference.engine.protocol import (
    ChatMessage,
    Engine,
    EngineDeadError,
    EngineInfo,
    EngineOutput,
    EngineTimings,
    GenerationStep,
    PromptTooLongError,
    SamplingOptions,
)

__all__ = [
    "ChatMessage",
    "Engine",
    "EngineDeadError",
    "EngineInfo",
    "EngineOutput",
    "EngineTimings",
    "GenerationStep",
    "PromptTooLongError",
    "SamplingOptions",
]
