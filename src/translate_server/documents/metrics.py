"""The document jobs' gauge: how many jobs the store holds in each status."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Gauge

from translate_server.documents.job import Status

STATUSES: tuple[Status, ...] = ("queued", "translating", "done", "error")


class JobGauge:
    def __init__(self, registry: CollectorRegistry) -> None:
        self._gauge = Gauge(
            "translate_documents",
            "Document jobs kept, by status (done and error jobs until their retention time ends).",
            ["status"],
            registry=registry,
        )
        self._children = {status: self._gauge.labels(status) for status in STATUSES}

    def set(self, counts: dict[str, int]) -> None:
        for status, child in self._children.items():
            child.set(counts.get(status, 0))
