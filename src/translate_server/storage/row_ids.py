"""Row ids that sort in the order their rows were made: UUIDv7 (RFC 9562), for the tables a
listing pages or a queue takes oldest first, by (creation time, id).

The id is the tiebreaker of rows made in the same clock tick, so it must be unique and, within
a process, rise with every id made: a random id (uuid4) put two such rows in either order, and
a page could repeat one and skip the other. `uuid6.uuid7` (Python 3.14's `uuid.uuid7` is the
same idea) begins an id with its milliseconds since the epoch and never repeats or lowers one:
a second id in the same millisecond takes the next millisecond. Two replicas' ids of one
millisecond are unique and sort one way, not necessarily the way they were made (no clock
shared by two machines could tell). The text of an id sorts as its number does (fixed width,
lowercase hex), on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

import threading
import uuid

from uuid6 import uuid7

# uuid7 keeps its last millisecond in a module global: one id at a time keeps the ids rising
# when threads (the database's worker threads) make them too.
_ONE_AT_A_TIME = threading.Lock()


def new_row_id() -> uuid.UUID:
    """A UUIDv7 greater than every other this process has made."""
    with _ONE_AT_A_TIME:
        return uuid.UUID(int=uuid7().int)
