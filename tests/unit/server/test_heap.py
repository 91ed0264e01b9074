"""Freezing the start-up heap: what is alive then is out of the collector's sight afterwards."""

from __future__ import annotations

import gc
import weakref

from translate_server.server.heap import freeze_startup_heap


class _Node:
    def __init__(self) -> None:
        self.peer: object = None


def test_garbage_is_collected_and_what_survives_is_frozen():
    survivor = _Node()
    cycle = _Node()
    cycle.peer = cycle  # only a collection frees a cycle
    cycle_alive = weakref.ref(cycle)
    del cycle
    try:
        frozen = freeze_startup_heap()
        assert cycle_alive() is None  # collected first, not frozen with the rest
        # Frozen objects that die later leave the count (threads left by earlier tests free
        # some at any moment), and nothing but another freeze adds to it: it can only fall.
        assert 0 < gc.get_freeze_count() <= frozen
        # A full pass no longer walks the survivor.
        assert all(obj is not survivor for obj in gc.get_objects())
    finally:
        gc.unfreeze()
    assert any(obj is survivor for obj in gc.get_objects())
