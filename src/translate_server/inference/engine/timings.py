"""vLLM's statistics of a finished request as our `EngineTimings` (no vLLM import).

Facts about vLLM 0.32 relied on here (checked against its source): with statistics on
(`disable_log_stats=False`), every `RequestOutput` carries `metrics`, a `RequestStateStats`
shared with the output processor and updated before each output is built, so the finished
output (FINAL_ONLY included) holds the request's whole history: `queued_ts`, `scheduled_ts`
(the first scheduling; preemptions do not move it), `first_token_ts` and `last_token_ts` are
the engine core's monotonic clock; `first_token_latency` is the front end's wall clock from
arrival to the first token; `num_preemptions` counts preemptions. `num_cached_tokens` is the
prompt's prefix-cache hit. With statistics off, `metrics` is None.
"""

from __future__ import annotations

from typing import Any

from translate_server.observability.engine_figures import EngineTimings


def engine_timings(output: Any) -> EngineTimings | None:
    """The finished request's figures, where the engine keeps statistics and it produced a
    token (an aborted request that never ran has nothing to tell)."""
    stats = output.metrics
    if stats is None or not stats.first_token_ts:
        return None
    return EngineTimings(
        wait=max(0.0, stats.scheduled_ts - stats.queued_ts),
        prefill=max(0.0, stats.first_token_ts - stats.scheduled_ts),
        first_token=max(0.0, stats.first_token_latency),
        decode=max(0.0, stats.last_token_ts - stats.first_token_ts),
        preemptions=stats.num_preemptions,
        cached_tokens=output.num_cached_tokens or 0,
    )
