"""A running job's reads and writes outlast a database that is briefly gone: each is tried
again, after pauses that double up to a bound, until the database answers (or the job is
stopped). Nothing is lost meanwhile: the batches translated since are kept in the run's
memory and written once it is back, and a claim whose lease ran out meanwhile is found taken
over (`claims.hold`) rather than written over."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import structlog

from translate_server.errors import StorageUnavailableError

T = TypeVar("T")
LONGEST_PAUSE = 10.0

log = structlog.get_logger("translate_server.documents")


async def persistently(call: Callable[[], Awaitable[T]], *, step: str, first_pause: float) -> T:
    """`call`'s result, once the database answers it."""
    pause = first_pause
    while True:
        try:
            return await call()
        except StorageUnavailableError as lost:
            log.warning(
                "document_jobs_wait_for_database", step=step, reason=lost.reason, retry_in=pause
            )
        await asyncio.sleep(pause)
        pause = min(pause * 2, LONGEST_PAUSE)
