from __future__ import annotations

import pytest

from translate_server.errors import OverloadedError, UnavailableError
from translate_server.inference.admission import Admission
from translate_server.observability.metrics import ServiceMetrics


def gauge(metrics: ServiceMetrics, name: str) -> float:
    return metrics.registry.get_sample_value(name) or 0.0


def test_admits_up_to_slots_plus_queue_then_refuses() -> None:
    metrics = ServiceMetrics()
    admission = Admission(slots=2, queue_limit=3, metrics=metrics)
    tickets = [admission.admit() for _ in range(5)]
    assert gauge(metrics, "translate_requests_running") == 2
    assert gauge(metrics, "translate_requests_waiting") == 3
    with pytest.raises(OverloadedError) as refused:
        admission.admit()
    assert refused.value.status_code == 503
    assert int(refused.value.headers["Retry-After"]) >= 1
    assert (
        metrics.registry.get_sample_value(
            "translate_requests_rejected_total", {"reason": "queue_full"}
        )
        == 1
    )
    tickets[0].release()
    tickets[0].release()  # releasing twice gives back nothing more
    assert admission.in_flight == 4
    admission.admit()
    assert admission.in_flight == 5


def test_weights_and_oversized_requests() -> None:
    admission = Admission(slots=2, queue_limit=2, metrics=ServiceMetrics())
    big = admission.admit(10)  # more than the capacity: runs, alone
    assert admission.in_flight == 4
    with pytest.raises(OverloadedError):
        admission.admit(1)
    big.release()
    assert admission.in_flight == 0


def test_draining_refuses_with_its_own_reason() -> None:
    metrics = ServiceMetrics()
    admission = Admission(slots=1, queue_limit=1, metrics=metrics)
    admission.draining = True
    with pytest.raises(UnavailableError) as refused:
        admission.admit()
    assert refused.value.code == "shutting_down"
    assert (
        metrics.registry.get_sample_value(
            "translate_requests_rejected_total", {"reason": "draining"}
        )
        == 1
    )
