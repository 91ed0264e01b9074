"""Coalesced streams: how many tokens the engine gathers into one streamed output.

A reader cannot tell a token every 10 ms from four tokens every 40 ms, but the server pays per
output: vLLM builds a `RequestOutput` and queues it, and the service writes a chunk. So a
stream asks the engine (`SamplingOptions.stream_interval`, vLLM's per-request
`stream_interval`) for one output per N tokens, with N chosen so that N tokens take at most
the bound (`--stream-coalesce-ms`) at the pace the engine's streams have recently run:

    N = floor(bound / seconds per token), at least 1, at most MAX_INTERVAL.

The pace is an exponential average of each stream's time per token, measured between its
outputs. The engine always sends a stream's first and last output at once (time to first token
and the end of a stream never wait). A slow engine (a token every 50 ms on a small CPU) gets
N = 1: nothing changes there. The gap a client sees is about N x the pace, so within the bound
while the pace holds; a stream keeps the N it started with, so a sudden slowdown stretches the
gaps of the streams already running until they end.

A stream that asks for log probabilities keeps one output per token.
"""

from __future__ import annotations

# Enough that a fast engine's per-output cost all but vanishes; beyond it the gain is small
# and a stream's text would arrive in large lumps.
MAX_INTERVAL = 16
# Weight of the newest measurement in the pace: a few dozen outputs make the estimate.
SMOOTHING = 0.05


class StreamPace:
    """The engine's recent seconds per streamed token, and the interval it implies."""

    __slots__ = ("bound", "seconds_per_token")

    def __init__(self, bound_ms: float) -> None:
        self.bound = bound_ms / 1000.0
        self.seconds_per_token: float | None = None

    @property
    def enabled(self) -> bool:
        return self.bound > 0

    def interval(self) -> int:
        """Tokens per streamed output for a stream starting now (1 until a pace is known)."""
        pace = self.seconds_per_token
        if pace is None or pace <= 0 or self.bound <= 0:
            return 1
        return max(1, min(MAX_INTERVAL, int(self.bound / pace)))

    def note(self, seconds: float, tokens: int) -> None:
        """`tokens` arrived in one output, `seconds` after the stream's previous output."""
        if tokens <= 0:
            return
        sample = seconds / tokens
        pace = self.seconds_per_token
        self.seconds_per_token = sample if pace is None else pace + SMOOTHING * (sample - pace)
