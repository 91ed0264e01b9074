"""The document runner's bounds: what one client may submit, and how the work is spread.
A module of their own so that the app (`translator.runner_limits`) and the translation of one
job (`job_translation`) name them without importing the runner."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RunnerLimits:
    # What one client may submit: characters to translate per document, and documents not
    # yet finished per owner (None: no limit).
    max_characters: int | None = None
    max_in_flight_per_owner: int | None = None
    # How the work is spread.
    max_jobs: int = 2
    batches_in_flight: int = 2
    batch_segments: int = 16
    batch_chars: int = 4000
    retry_delay: float = 1.0  # first pause after an overloaded answer; doubles up to 30 s
    max_retries: int = 8
    expire_every: float = 300.0
