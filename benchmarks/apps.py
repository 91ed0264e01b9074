"""uvicorn factories for the HTTP-layer comparison: the service's Litestar app and the FastAPI
comparison app, each around the zero-latency engine, logging one JSON line per request.

    python -m uvicorn --app-dir bench --factory apps:litestar_app
    python -m uvicorn --app-dir bench --factory apps:fastapi_app
"""

from __future__ import annotations

from translate_server.http.observability import configure_logging
from translate_server.settings import Settings, load_settings

from zero_engine import ZeroLatencyEngine

SERVED_NAME = "bench-model"


def settings() -> Settings:
    # No translation cache: repeated texts would skip the work the comparison app does.
    return load_settings({"served_model_name": SERVED_NAME, "translation_cache_size": 0},
                         environ={})


def litestar_app():
    from translate_server.app import create_app

    configure_logging("json", "info")
    return create_app(settings(), lambda: ZeroLatencyEngine(model=SERVED_NAME))


def fastapi_app():
    from fastapi_app import create_fastapi_app

    configure_logging("json", "info")
    return create_fastapi_app(settings(), lambda: ZeroLatencyEngine(model=SERVED_NAME))


def floor_app():
    from asgi_floor import app

    return app
