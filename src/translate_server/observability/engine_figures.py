"""What the engine measured of one request: part of the request's record (its log line, metrics
and span), so it lives with the record; the engine's adapter fills it (`inference.engine`)."""

from __future__ import annotations

import msgspec


class EngineTimings(msgspec.Struct, frozen=True):
    """What the engine measured of one request, in seconds (vLLM's per-request statistics).

    Only the finished output carries them, and only when the engine keeps statistics.
    """

    # Queued in the engine -> first scheduled into a batch: the wait for a batch slot.
    wait: float
    # First scheduled -> first token: the prompt's prefill (several steps when chunked).
    prefill: float
    # Arrival in the engine -> first token, as the engine's front end saw it.
    first_token: float
    # First token -> last token.
    decode: float
    # Times the scheduler took the request out of the batch to free KV cache.
    preemptions: int = 0
    # Prompt tokens whose KV came from the prefix cache (not prefilled again).
    cached_tokens: int = 0
