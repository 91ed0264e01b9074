"""The count of engine failures in a row: failing at the threshold, cleared by one success,
logged once each way, and shown on its gauge."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Gauge
from structlog.testing import capture_logs

from translate_server.inference.engine_failures import EngineFailures


def test_failing_from_the_threshold_until_a_success() -> None:
    registry = CollectorRegistry()
    gauge = Gauge("failures", "test", registry=registry)
    failures = EngineFailures(threshold=3, gauge=gauge)
    with capture_logs() as logs:
        for _ in range(2):
            failures.failed()
        assert not failures.failing
        for _ in range(3):
            failures.failed()
        assert failures.failing and registry.get_sample_value("failures") == 5
        failures.succeeded()
        assert not failures.failing and registry.get_sample_value("failures") == 0
    # Once as it crossed the threshold (not again at 4 and 5), once as it recovered.
    assert [(log["event"], log["log_level"]) for log in logs] == [
        ("engine_failing", "error"),
        ("engine_recovered", "warning"),
    ]


def test_a_success_below_the_threshold_starts_the_count_again() -> None:
    failures = EngineFailures(threshold=2)
    failures.failed()
    failures.succeeded()
    failures.failed()
    assert failures.consecutive == 1 and not failures.failing
