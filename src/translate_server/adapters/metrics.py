"""Requests answered by each model, where adapters are served: fed, like every other metric,
from the request's rendered record (its `model` field, the one its log line shows), so the
count and the log line never disagree."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from prometheus_client import CollectorRegistry, Counter


class AdapterMetrics:
    def __init__(self, registry: CollectorRegistry, base_model: str) -> None:
        self.base_model = base_model
        self.requests = Counter(
            "translate_adapter_requests",
            "Requests answered with each LoRA adapter (`base` for the base model).",
            ["adapter"],
            registry=registry,
        )

    def observe(self, route: str, fields: Mapping[str, Any]) -> None:
        # A list whose texts went to several models names them comma-separated: each counts.
        for name in dict.fromkeys(str(fields.get("model") or "").split(",")):
            if name:
                self.requests.labels("base" if name == self.base_model else name).inc()


def adapter_metrics(base_model: str) -> Callable[[CollectorRegistry], AdapterMetrics]:
    """The part `ServiceMetrics` makes in its registry."""
    return lambda registry: AdapterMetrics(registry, base_model)
