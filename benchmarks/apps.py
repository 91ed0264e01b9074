"""uvicorn factories for the HTTP-layer comparison: the service's Litestar app and the FastAPI
comparison app, each around the zero-latency engine, logging one JSON line per request.

    python -m uvicorn --app-dir bench --factory apps:litestar_app
    python -m uvicorn --app-dir bench --factory apps:fastapi_app
"""

from __future__ import annotations

import tempfile

from translate_server.server.heap import freeze_startup_heap
from translate_server.server.logging_setup import configure_logging
from translate_server.settings import Settings, load_settings

from zero_engine import ZeroLatencyEngine

SERVED_NAME = "bench-model"


def settings(quality_guard: bool = True, **more: object) -> Settings:
    # Stores of its own, never the user's files (the server's default folder).
    stores = tempfile.mkdtemp(prefix="translate-bench-")
    # No translation cache: repeated texts would skip the work the comparison app does.
    return load_settings(
        {
            "served_model_name": SERVED_NAME,
            "memory_db": f"{stores}/memories.sqlite3",
            "glossary_db": f"{stores}/glossaries.sqlite3",
            "document_dir": f"{stores}/documents",
            "translation_cache_size": 0,
            "quality_guard": quality_guard,
            **more,
        },
        environ={},
    )


def litestar_app(quality_guard: bool = True, **more: object):
    from translate_server.app import create_app

    configure_logging("json", "info")
    return create_app(
        settings(quality_guard, **more),
        lambda: ZeroLatencyEngine(model=SERVED_NAME),
        on_ready=_freeze,
    )


def uncoalesced_app():
    """The service with coalesced streams off (`--stream-coalesce-ms 0`): one chunk per token."""
    return litestar_app(stream_coalesce_ms=0)


def unguarded_app():
    """The service without its translation quality guard: what the guard costs."""
    return litestar_app(quality_guard=False)


def litestar_traced_app():
    """The service with its own tracing on, exporting to BENCH_OTLP_TRACES_ENDPOINT."""
    import os

    from translate_server.app import create_app
    from translate_server.observability.tracing import build_tracing

    configure_logging("json", "info")
    tracing = build_tracing(os.environ["BENCH_OTLP_TRACES_ENDPOINT"])
    return create_app(
        settings(), lambda: ZeroLatencyEngine(model=SERVED_NAME), tracing=tracing, on_ready=_freeze
    )


def litestar_otel_asgi_app():
    """The service with Litestar's OpenTelemetry middleware around it instead (one span per
    request, and one per ASGI message sent or received), exporting to the same endpoint."""
    import os

    from litestar.plugins.opentelemetry import OpenTelemetryConfig
    from litestar.plugins.opentelemetry.middleware import OpenTelemetryInstrumentationMiddleware

    from translate_server.app import create_app
    from translate_server.observability.tracing import build_tracing

    configure_logging("json", "info")
    tracing = build_tracing(os.environ["BENCH_OTLP_TRACES_ENDPOINT"])
    assert tracing is not None
    app = create_app(settings(), lambda: ZeroLatencyEngine(model=SERVED_NAME), on_ready=_freeze)
    app.asgi_handler = OpenTelemetryInstrumentationMiddleware(
        app.asgi_handler, OpenTelemetryConfig(tracer_provider=tracing.provider)
    )
    app.on_shutdown.append(tracing.shutdown)  # the app's own tracing (off) does not
    return app


def fastapi_app():
    from fastapi_app import create_fastapi_app

    configure_logging("json", "info")
    return create_fastapi_app(settings(), lambda: ZeroLatencyEngine(model=SERVED_NAME))


def floor_app():
    from asgi_floor import app

    return app


def floor_coalesced_app():
    """The floor streaming as the coalescing service does over the zero-latency engine."""
    from translate_server.inference.coalescing import MAX_INTERVAL

    from asgi_floor import coalesced

    return coalesced(MAX_INTERVAL)


def litestar_floor_app():
    """The smallest Litestar app serving the same routes: the framework's own floor."""
    from litestar_floor import create

    return create()


def _freeze() -> None:
    """As the server does once it is ready: start-up's objects out of every full collection
    (the FastAPI app does the same at the end of its start-up)."""
    freeze_startup_heap()
