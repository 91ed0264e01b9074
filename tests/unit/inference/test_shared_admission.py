"""Admission shared by several front-end processes: one count of the engine's capacity."""

from __future__ import annotations

import multiprocessing

import pytest

from translate_server.errors import OverloadedError
from translate_server.inference.admission import Admission
from translate_server.inference.shared_admission import SharedCapacity
from translate_server.observability.metrics import ServiceMetrics


def front_ends(shared: SharedCapacity, count: int = 2) -> list[Admission]:
    return [
        Admission(slots=2, queue_limit=2, metrics=ServiceMetrics(), shared=shared)
        for _ in range(count)
    ]


def test_capacity_is_counted_once_across_front_ends() -> None:
    shared = SharedCapacity()
    first, second = front_ends(shared)
    held = [first.admit(), first.admit(), second.admit(), second.admit()]
    assert shared.total == 4
    # Each front end holds only 2 of its own: alone, each would still admit 2 more.
    for admission in (first, second):
        with pytest.raises(OverloadedError):
            admission.admit()
    held[0].release()
    assert (first.in_flight, second.in_flight, shared.total) == (1, 2, 3)
    second.admit()  # room freed by the other front end
    assert shared.total == 4


def test_refusal_reports_the_global_queue() -> None:
    shared = SharedCapacity()
    first, second = front_ends(shared)
    first.admit(weight=4)
    assert second.waiting == 2  # nothing of its own waits, yet the engine's queue is full
    with pytest.raises(OverloadedError) as refused:
        second.admit()
    assert "4 requests admitted" in refused.value.message


def test_more_for_an_admitted_request_counts_globally_and_is_given_back() -> None:
    shared = SharedCapacity()
    [admission] = front_ends(shared, 1)
    ticket = admission.admit()
    extra = admission.admit_more(3)
    assert shared.total == 4
    extra.release()
    ticket.release()
    assert shared.total == 0


def _take_two(shared: SharedCapacity) -> None:
    assert shared.try_take(2, capacity=4)


def test_the_count_lives_in_memory_another_process_shares() -> None:
    context = multiprocessing.get_context("spawn")
    shared = SharedCapacity(context)
    process = context.Process(target=_take_two, args=(shared,))
    process.start()
    process.join(timeout=60)
    assert process.exitcode == 0
    assert shared.total == 2
    assert shared.try_take(2, capacity=4)
    assert not shared.try_take(1, capacity=4)
