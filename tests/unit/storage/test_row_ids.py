"""Row ids rise with every id a process makes, whatever its clock does, and their text sorts
as they were made: the tiebreaker of rows made in one clock tick."""

from __future__ import annotations

import uuid

from translate_server.storage.row_ids import RowIds, new_row_id


def _made(ids: RowIds, count: int) -> list[uuid.UUID]:
    return [ids.next() for _ in range(count)]


def test_ids_of_one_millisecond_rise_as_they_are_made() -> None:
    made = _made(RowIds(lambda: 1_700_000_000_123_456_789), 1000)
    assert [str(i) for i in made] == sorted(str(i) for i in made)
    assert len(set(made)) == 1000
    assert {i.int >> 80 for i in made} == {1_700_000_000_123}  # its milliseconds first


def test_a_clock_that_steps_back_never_lowers_an_id() -> None:
    times = iter([5_000_000_000, 4_000_000_000, 3_000_000_000, 5_000_000_000, 6_000_000_000])
    made = _made(RowIds(lambda: next(times)), 5)
    assert made == sorted(made) and len(set(made)) == 5
    assert [i.int >> 80 for i in made] == [5000, 5000, 5000, 5000, 6000]


def test_ids_are_version_7_and_rise_across_milliseconds() -> None:
    made = [new_row_id() for _ in range(200)]
    assert {(i.version, i.variant) for i in made} == {(7, uuid.RFC_4122)}
    assert [str(i) for i in made] == sorted(str(i) for i in made)
    assert [i.hex.upper() for i in made] == sorted(i.hex.upper() for i in made)
