"""GET /v1/models and /v1/models/{id}: the served model and its LoRA adapters."""

from __future__ import annotations

from typing import Any

from litestar import Request, get

from translate_server.http.openapi import error_responses
from translate_server.openai_api.models.protocol import Model, ModelList
from translate_server.services import SERVED_MODELS, Services, services


def _model(found: Services, name: str) -> Model:
    base = found.model_name
    return Model(
        id=name,
        created=found.started_at,
        max_model_len=found.engine.info.max_model_len,
        parent=None if name == base else base,
    )


@get(
    "/v1/models",
    summary="List the served model and its LoRA adapters",
    tags=["openai"],
    responses=error_responses(401),
)
async def list_models(request: Request[Any, Any, Any]) -> ModelList:
    found = services(request)
    return ModelList(data=[_model(found, name) for name in found[SERVED_MODELS].names])


@get(
    "/v1/models/{model_id:path}",
    summary="Describe the served model",
    tags=["openai"],
    responses=error_responses(401, 404),
)
async def retrieve_model(model_id: str, request: Request[Any, Any, Any]) -> Model:
    found = services(request)
    model_id = model_id.lstrip("/")
    found[SERVED_MODELS].named(model_id)  # a 404 for a model not served
    return _model(found, model_id)
