"""Changing the `stream_interval` of a request vLLM is already running (no vLLM import).

vLLM has no API for it: the interval is read, output by output, from the request's state in
the front end's output processor, so this writes it there. Facts about vLLM 0.32 relied on
(`vllm/v1/engine/output_processor.py`, checked against its source):
- `AsyncLLM.output_processor.external_req_ids` maps our request id to vLLM's internal ids
  (one per choice); `output_processor.request_states[internal_id]` is a `RequestState`. Both
  are plain dicts mutated only by the output handler, on the event loop this runs on, so a
  retune never lands in the middle of an output being made. `external_req_ids` is a
  defaultdict: it is read with `.get`, or a lookup would add an entry.
- `RequestState.make_request_output` reads `stream_interval` on every engine step. With it
  above 1 an output is sent when the request finished, when `sent_tokens_offset == 0` (the
  first) or when `num_output_tokens() - sent_tokens_offset >= stream_interval`; it then
  sends the token ids from `sent_tokens_offset` on (DELTA) and moves the offset up. The
  detokenizer keeps its own offset for the text, so the text is whole whatever the interval.
- With the interval at 1, that block is skipped: each step's new token ids go out as they
  come, and `sent_tokens_offset` is left where it was (0 for a stream that started at 1).
So:
- between two intervals above 1 the change is safe as it is;
- down to 1 is safe only when nothing is held back (`num_output_tokens() ==
  sent_tokens_offset`): the held ids would never be sent (their text would), so the interval
  goes to 2 instead, and the next retune can bring it to 1;
- up from 1, everything produced has been sent, so `sent_tokens_offset` is brought up to the
  tokens produced first; left behind, vLLM would send every id since it again.
The engine's own interval (`output_processor.stream_interval`) stays the floor, as vLLM
applies it to each request when added.

Anything missing (another vLLM, another front end) makes this a no-op: streams then keep the
interval they started with, as before.
"""

from __future__ import annotations

from typing import Any


def retune(output_processor: Any, request_id: str, interval: int) -> int | None:
    """Give a running request `interval`; the interval it has afterwards (the largest over its
    choices), or None where it cannot be changed."""
    states = getattr(output_processor, "request_states", None)
    internal_ids = getattr(output_processor, "external_req_ids", None)
    if not isinstance(states, dict) or not isinstance(internal_ids, dict):
        return None
    floor = getattr(output_processor, "stream_interval", 1)
    interval = max(interval, floor if isinstance(floor, int) else 1)
    result = None
    for internal_id in internal_ids.get(request_id) or ():
        state = states.get(internal_id)
        now = None if state is None else retune_state(state, interval)
        if now is not None:
            result = now if result is None else max(result, now)
    return result


def retune_state(state: Any, interval: int) -> int | None:
    """Give one `RequestState` `interval` where that loses no token; the interval it has."""
    current = getattr(state, "stream_interval", None)
    sent = getattr(state, "sent_tokens_offset", None)
    produced_tokens = getattr(getattr(state, "detokenizer", None), "num_output_tokens", None)
    if not isinstance(current, int) or not isinstance(sent, int) or produced_tokens is None:
        return None
    if interval == current:
        return current
    produced = produced_tokens()
    if current <= 1:
        # Everything produced went out token by token: nothing to send again.
        state.sent_tokens_offset = produced
    elif interval <= 1 and produced > sent:
        interval = 2
    state.stream_interval = interval
    return interval
