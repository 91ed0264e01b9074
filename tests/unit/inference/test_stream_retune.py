"""Retuning a running vLLM request's stream interval, against stand-ins for vLLM 0.32's
output-processor state (the real engine's test is tests/engine/test_coalesced_streams_engine):
no change may lose or repeat a token id."""

from __future__ import annotations

from collections import defaultdict
from types import SimpleNamespace

from translate_server.inference.engine.stream_retune import retune, retune_state


class _Detokenizer:
    def __init__(self, produced: int) -> None:
        self.produced = produced

    def num_output_tokens(self) -> int:
        return self.produced


def _state(interval: int, produced: int, sent: int) -> SimpleNamespace:
    return SimpleNamespace(
        stream_interval=interval, sent_tokens_offset=sent, detokenizer=_Detokenizer(produced)
    )


def _processor(*states: SimpleNamespace, floor: int = 1) -> SimpleNamespace:
    ids: defaultdict[str, list[str]] = defaultdict(list)
    ids["r"] = [f"r-{i}" for i in range(len(states))]
    return SimpleNamespace(
        request_states={f"r-{i}": state for i, state in enumerate(states)},
        external_req_ids=ids,
        stream_interval=floor,
    )


def test_between_intervals_above_one_the_change_is_as_asked() -> None:
    state = _state(8, produced=13, sent=9)
    assert retune_state(state, 3) == 3
    assert (state.stream_interval, state.sent_tokens_offset) == (3, 9)
    assert retune_state(state, 12) == 12
    assert (state.stream_interval, state.sent_tokens_offset) == (12, 9)


def test_down_to_one_with_nothing_held_is_one() -> None:
    state = _state(8, produced=9, sent=9)
    assert retune_state(state, 1) == 1
    assert state.stream_interval == 1


def test_down_to_one_with_tokens_held_stops_at_two() -> None:
    # The held ids (sent..produced) would never be sent at 1: two sends them with the next.
    state = _state(8, produced=12, sent=9)
    assert retune_state(state, 1) == 2
    assert (state.stream_interval, state.sent_tokens_offset) == (2, 9)


def test_up_from_one_counts_what_was_sent_token_by_token() -> None:
    # A stream that started at 1: its offset never moved.
    started = _state(1, produced=7, sent=0)
    assert retune_state(started, 5) == 5
    assert (started.stream_interval, started.sent_tokens_offset) == (5, 7)
    # One that came down to 1 later: its offset is where it was left.
    lowered = _state(1, produced=30, sent=12)
    assert retune_state(lowered, 4) == 4
    assert (lowered.stream_interval, lowered.sent_tokens_offset) == (4, 30)


def test_up_from_one_before_any_token_keeps_the_first_sent_at_once() -> None:
    state = _state(1, produced=0, sent=0)
    assert retune_state(state, 6) == 6
    assert state.sent_tokens_offset == 0


def test_the_same_interval_changes_nothing() -> None:
    state = _state(1, produced=7, sent=0)
    assert retune_state(state, 1) == 1
    assert state.sent_tokens_offset == 0


def test_every_choice_of_a_request_is_retuned() -> None:
    held, clear = _state(8, produced=12, sent=9), _state(8, produced=9, sent=9)
    assert retune(_processor(held, clear), "r", 1) == 2
    assert (held.stream_interval, clear.stream_interval) == (2, 1)


def test_the_engines_own_interval_is_the_floor() -> None:
    state = _state(8, produced=9, sent=9)
    assert retune(_processor(state, floor=3), "r", 1) == 3
    assert state.stream_interval == 3


def test_an_unknown_request_is_left_alone_and_not_added() -> None:
    processor = _processor(_state(8, produced=9, sent=9))
    assert retune(processor, "gone", 2) is None
    assert "gone" not in processor.external_req_ids


def test_missing_internals_make_it_a_no_op() -> None:
    assert retune(SimpleNamespace(), "r", 2) is None
    assert retune(SimpleNamespace(request_states={}, external_req_ids=None), "r", 2) is None
    bare = SimpleNamespace(stream_interval=8)  # no offset, no detokenizer
    assert retune(_processor(bare), "r", 2) is None
    assert bare.stream_interval == 8
