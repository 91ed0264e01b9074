"""The wire of /v1/models: OpenAI's model objects."""

from __future__ import annotations

from typing import Literal

import msgspec


class Model(msgspec.Struct, kw_only=True):
    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str = "translate-server"
    max_model_len: int | None = None
    # A LoRA adapter's base model (as vLLM's server lists them); null for the base model.
    parent: str | None = None


class ModelList(msgspec.Struct, kw_only=True):
    object: Literal["list"] = "list"
    data: list[Model]
