"""Row ids rise with every id a process makes, and their text sorts as they were made: the
tiebreaker of rows made in one clock tick."""

from __future__ import annotations

import threading
import uuid

from translate_server.storage.row_ids import new_row_id


def test_ids_made_faster_than_the_clock_ticks_rise_as_they_are_made() -> None:
    made = [new_row_id() for _ in range(2000)]
    assert len(set(made)) == 2000
    assert [str(i) for i in made] == sorted(str(i) for i in made)
    assert [i.hex.upper() for i in made] == sorted(i.hex.upper() for i in made)


def test_ids_are_version_7() -> None:
    assert {(i.version, i.variant) for i in (new_row_id() for _ in range(50))} == {
        (7, uuid.RFC_4122)
    }


def test_ids_made_by_several_threads_are_unique() -> None:
    made: list[uuid.UUID] = []

    def make() -> None:
        made.extend(new_row_id() for _ in range(500))

    threads = [threading.Thread(target=make) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(made)) == 2000
