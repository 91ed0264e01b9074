"""The adapters domain: LoRA adapters loaded beside the base model (`--lora`, and the admin
routes at run time), the model resolution every surface asks, and the requests counted per
adapter."""

from __future__ import annotations

from collections.abc import Sequence

from translate_server.adapters.catalog import open_adapters, read_configured, serves_adapters
from translate_server.adapters.keys import ADAPTERS
from translate_server.adapters.metrics import adapter_metrics
from translate_server.adapters.routes import admin_router
from translate_server.inference.served_models import ServedModels
from translate_server.registration import Domain, MetricsFactory, Opening
from translate_server.services import SERVED_MODELS
from translate_server.settings import Settings


async def _open(opening: Opening) -> None:
    engine_settings = opening.settings.engine
    configured = read_configured(engine_settings)
    catalog = await open_adapters(engine_settings, opening.services.engine, configured)
    if catalog is not None:
        opening.services.provide(ADAPTERS, catalog)
    opening.services.provide(SERVED_MODELS, ServedModels(engine_settings.model_name, catalog))


def _check(settings: Settings) -> None:
    read_configured(settings.engine)  # a bad --lora fails the start before the engine starts


def _metrics(settings: Settings) -> Sequence[MetricsFactory]:
    engine = settings.engine
    return [adapter_metrics(engine.model_name)] if serves_adapters(engine) else []


DOMAIN = Domain(
    "adapters",
    routes=lambda settings: [admin_router(settings.server.admin_key)],
    open=_open,
    metrics=_metrics,
    check=_check,
    provides=(ADAPTERS, SERVED_MODELS),
)
