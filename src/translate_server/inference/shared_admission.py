"""Admission shared by several front-end processes (`--api-processes N`): one count.

Every front-end process keeps its own `Admission` (its tickets, its drain, its estimate of
how long a ticket is held), but the sequences admitted are counted once, in shared memory:
the capacity (`--max-num-seqs` plus the queue) is the engine's, whichever process a request
reached. A refusal's `Retry-After` reads the same global count of waiting requests.

The count lives as long as the supervisor that made it; a front end that dies holding
tickets takes the whole server down with it (the supervisor stops), so no count leaks into
a server that keeps running.
"""

from __future__ import annotations

import multiprocessing
from typing import Any


class SharedCapacity:
    """Engine sequences admitted by every front end together, under one lock."""

    def __init__(self, context: Any = None) -> None:
        context = context or multiprocessing.get_context("spawn")
        self._count = context.RawValue("q", 0)
        self._lock = context.Lock()

    @property
    def total(self) -> int:
        return int(self._count.value)

    def try_take(self, weight: int, capacity: int) -> bool:
        """Add `weight` unless the total would pass `capacity`."""
        with self._lock:
            if self._count.value + weight > capacity:
                return False
            self._count.value += weight
            return True

    def take(self, weight: int) -> None:
        with self._lock:
            self._count.value += weight

    def give(self, weight: int) -> None:
        with self._lock:
            self._count.value -= weight
