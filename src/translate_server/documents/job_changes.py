"""Wake-ups for whoever watches a job's progress (its event stream).

Each job has at most one pending event: its next change sets it and drops it, so the change
after that gets a fresh one. A watcher takes the event before reading the job, so a change
made after that read always wakes it.
"""

from __future__ import annotations

import asyncio


class JobChanges:
    def __init__(self) -> None:
        self._events: dict[str, asyncio.Event] = {}

    def next(self, job_id: str) -> asyncio.Event:
        """The event the job's next change sets."""
        return self._events.setdefault(job_id, asyncio.Event())

    async def notify(self, job_id: str) -> None:
        changed = self._events.pop(job_id, None)
        if changed is not None:
            changed.set()
