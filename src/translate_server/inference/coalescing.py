"""Coalesced streams: how many tokens the engine gathers into one streamed output.

A reader cannot tell a token every 10 ms from four tokens every 40 ms, but the server pays per
output: vLLM builds a `RequestOutput` and queues it, and the service writes a chunk. So a
stream asks the engine (`SamplingOptions.stream_interval`, vLLM's per-request
`stream_interval`) for one output per N tokens, with N chosen so that N tokens take at most
the bound (`--stream-coalesce-ms`) at the pace the engine runs:

    N = floor(bound / seconds per token), at least 1, at most MAX_INTERVAL.

A stream starts with the N of the pace the engine's streams have recently run (`StreamPace`,
an exponential average of each stream's time per token, measured between its outputs). Then
it follows its own pace (`StreamCoalescer`): a slower output counts at once (one past the
bound as if all its excess time were its last token's: the engine slowed down somewhere
within it), so after the output during which the pace fell
(more streams joined the batch) the stream asks the engine for a smaller N
(`Engine.retune_stream`) and its next gaps are within the bound again; a quicker
pace counts gradually, and N grows only to where the gap stays within the bound with 15% to
spare, so a pace that wavers by less does not raise and lower it by turns. A stream that
started at N = 1 because no pace was known yet (the first after start-up) is coalesced once it
has timed its own outputs. The engine always sends a stream's first and last output at once
(time to first token and the end of a stream never wait). A slow engine (a token every 50 ms
on a small CPU) gets N = 1: nothing changes there. The gap a client sees is thus about N x
the pace: within the bound, except for the output during which the pace fell.

A stream that asks for log probabilities keeps one output per token.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from translate_server.inference.engine import EngineOutput

# Enough that a fast engine's per-output cost all but vanishes; beyond it the gain is small
# and a stream's text would arrive in large lumps.
MAX_INTERVAL = 16
# Weight of the newest measurement in the shared pace: a few dozen outputs make the estimate.
SMOOTHING = 0.05
# Weight of a quicker measurement in a stream's own pace (a slower one replaces it): a few
# outputs at a quicker pace before a stream's N grows.
QUICKEN = 0.25
# A stream's N grows only to an N that keeps the gap within the bound with this much to spare,
# so that a pace that wavers by less does not raise and lower it by turns.
HEADROOM = 1.15


def interval_for(bound: float, seconds_per_token: float | None) -> int:
    """Tokens per output that take at most `bound` seconds at this pace (1 if unknown)."""
    if seconds_per_token is None or seconds_per_token <= 0 or bound <= 0:
        return 1
    # The small addition: a pace that divides the bound exactly gives its N, not one less.
    return max(1, min(MAX_INTERVAL, int(bound / seconds_per_token + 1e-6)))


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
        return interval_for(self.bound, self.seconds_per_token)

    def note(self, seconds: float, tokens: int) -> None:
        """`tokens` arrived in one output, `seconds` after the stream's previous output."""
        if tokens <= 0:
            return
        sample = seconds / tokens
        pace = self.seconds_per_token
        self.seconds_per_token = sample if pace is None else pace + SMOOTHING * (sample - pace)


class StreamCoalescer:
    """One stream's interval: chosen from the shared pace when it starts, then re-picked from
    the stream's own pace after each output."""

    __slots__ = ("_counts", "_previous", "_shared", "interval", "seconds_per_token")

    def __init__(self, shared: StreamPace, choices: int = 1) -> None:
        self._shared = shared
        self.seconds_per_token = shared.seconds_per_token
        self.interval = shared.interval()
        self._counts = [0] * choices
        self._previous = [0.0] * choices

    def observe(self, output: EngineOutput, now: float) -> int | None:
        """Note an output that arrived at `now` (seconds); returns the interval the stream
        should have from now on, or None to keep the one it has."""
        sampled = False
        for step in output.steps:
            index = step.index
            new = step.completion_tokens - self._counts[index]
            self._counts[index] = step.completion_tokens
            previous = self._previous[index]
            self._previous[index] = now
            # The first output's wait is the prefill's, not the pace's; the last comes early.
            if previous and new > 0 and step.finish_reason is None:
                self.note(now - previous, new)
                sampled = True
        if not sampled or output.finished:
            return None
        return self.repick()

    def note(self, seconds: float, tokens: int) -> None:
        """`tokens` of one choice arrived in one output, `seconds` after its previous one."""
        self._shared.note(seconds, tokens)
        sample = seconds / tokens
        pace = self.seconds_per_token
        if pace is None:
            self.seconds_per_token = sample
        elif sample > pace:
            # Slower: at once. An output past the bound means the engine slowed down somewhere
            # within it, and where cannot be told: its average would leave the next output
            # past the bound too when the change came late, so the whole excess goes to its
            # last token (too slow a guess costs a few more outputs; the pace comes back
            # within about ten). Jitter within the bound is taken as it is.
            over = seconds > self._shared.bound
            self.seconds_per_token = pace + tokens * (sample - pace) if over else sample
        else:
            self.seconds_per_token = pace + QUICKEN * (sample - pace)

    def repick(self) -> int | None:
        """The interval the stream's pace now calls for, when it differs enough to change."""
        bound, pace, current = self._shared.bound, self.seconds_per_token, self.interval
        # Any smaller N is needed to keep the gap within the bound; a larger one must leave
        # some time to spare.
        target = interval_for(bound, pace)
        if target < current:
            return target
        grown = interval_for(bound / HEADROOM, pace)
        return grown if grown > current else None

    def retuned(self, interval: int | None, asked: int) -> None:
        """The engine's answer to a retune: the interval the stream has now (None: it cannot
        say, and `asked` is taken as given, so the stream does not ask again)."""
        self.interval = asked if interval is None else interval
