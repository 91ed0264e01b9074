"""Jobs of other kinds on the document queue (OpenAI's batches): what their work is given,
and its signature. The runner (`DocumentJobs.add_kind`) runs a claimed job whose `format` names
a kind with that kind's work, under the same claims, leases and retention as a document."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from translate_server.documents.job import Job
from translate_server.documents.limits import RunnerLimits
from translate_server.documents.store import JobStore


@dataclass(frozen=True, slots=True)
class JobRun:
    """What a job of another kind is run with: the store its progress is written to (every
    write holding the claim), its watchers' notice, and whether the runner stopped it (a
    cancellation that comes back as another error is then not the job's failure)."""

    store: JobStore
    limits: RunnerLimits
    notify: Callable[[str], Awaitable[None]]
    stopped: Callable[[str], bool]  # stopped(job_id)


# work(job, run): run a claimed job of another kind to its end; the job recorded as done
# (`JobStore.finish_with`). An exception fails the job, as a document's does.
JobWork = Callable[[Job, JobRun], Awaitable[Job]]
