"""Row ids that sort in the order their rows were made: UUIDv7 (RFC 9562), for the tables a
listing pages or a queue takes oldest first, by (creation time, id).

The id is the tiebreaker of rows made in the same clock tick, so it must be unique and, within
a process, rise with every id made: a random id (uuid4) put two such rows in either order, and
a page could repeat one and skip the other. An id begins with its milliseconds since the epoch;
its other 74 bits (but the version's and the variant's) are a counter that starts anywhere in
its lower half each millisecond and rises by a random step with every id of that millisecond
(RFC 9562's method 2), so the next id is not guessable from the last. A clock that steps back
changes nothing: the last millisecond is kept until the clock passes it. Two replicas' ids of
one millisecond are unique and sort one way, not necessarily the way they were made (no clock
shared by two machines could tell). The text of an id sorts as its number does (fixed width,
lowercase hex), on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

import secrets
import threading
import time
import uuid
from collections.abc import Callable

_COUNTER_BITS = 74  # 12 of `rand_a` and 62 of `rand_b`
_STEP_BITS = 32


class RowIds:
    """A source of rising UUIDv7s; one per process (`new_row_id`), or one per test's clock."""

    def __init__(self, clock_ns: Callable[[], int] = time.time_ns) -> None:
        self._clock_ns = clock_ns
        self._lock = threading.Lock()
        self._millis = -1
        self._counter = 0

    def next(self) -> uuid.UUID:
        with self._lock:
            millis = self._clock_ns() // 1_000_000
            if millis > self._millis:
                self._millis, self._counter = millis, secrets.randbits(_COUNTER_BITS - 1)
            else:
                self._counter += 1 + secrets.randbits(_STEP_BITS)
                if self._counter >> _COUNTER_BITS:  # the millisecond is full: the next one
                    self._millis, self._counter = self._millis + 1, 0
            return _uuid7(self._millis, self._counter)


def _uuid7(millis: int, counter: int) -> uuid.UUID:
    high, low = counter >> 62, counter & ((1 << 62) - 1)
    return uuid.UUID(int=millis << 80 | 0x7 << 76 | high << 64 | 0b10 << 62 | low)


_PROCESS = RowIds()


def new_row_id() -> uuid.UUID:
    """A UUIDv7 greater than every other this process has made."""
    return _PROCESS.next()
