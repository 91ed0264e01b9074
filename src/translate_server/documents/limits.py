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
    # Across servers: a claimed job is this server's for `lease_seconds`, renewed every third
    # of it while it runs; a server with a free slot looks for queued jobs every
    # `claim_every` seconds (at once when a job is submitted to it or one of its jobs ends).
    lease_seconds: float = 30.0
    claim_every: float = 1.0
    database_retry: float = 0.5  # first pause when the database is gone; doubles up to 10 s
