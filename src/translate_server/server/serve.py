"""`translate-server serve`: one process around the vLLM engine, or, with `--api-processes N`,
the supervisor of N front ends over one shared engine core."""

from __future__ import annotations

from translate_server.inference.engine import Engine
from translate_server.server.api_processes import supervise
from translate_server.server.logging_setup import configure_logging
from translate_server.server.process_tree import tie_children_to_this_process
from translate_server.server.run import run_server
from translate_server.settings import Settings


def serve(settings: Settings) -> int:
    """Serve with the vLLM engine; returns the process exit code."""
    configure_logging(settings.server.log_format, settings.server.log_level)
    if settings.server.api_processes > 1:
        return supervise(settings)
    from translate_server.inference.engine.vllm_engine import (
        create_vllm_engine,
        freeze_vllm_environment,
    )

    def start_engine() -> Engine:
        tie_children_to_this_process()
        engine = create_vllm_engine(settings.engine)
        freeze_vllm_environment()
        return engine

    return run_server(settings, start_engine)
