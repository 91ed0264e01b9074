"""Which server runs a document job: a claim with a lease, kept in the job's row, so that any
number of servers over one database share the queue and a job is run by one of them at a
time.

A server claims the oldest job that is queued, or translating with no live claim (its server
stopped cleanly and let it go, or died and its lease ran out); it renews the leases of its
running jobs with a heartbeat, and lets them go when it stops. A finished job keeps the name
of the server that finished it. Every write of a running job's progress checks that the
claim is still the writer's (`hold`): a server that lost its claim (partitioned from the
database longer than its lease, while another took the job over) writes nothing more.

On PostgreSQL the claim reads its row `FOR UPDATE SKIP LOCKED`: servers claiming at once each
take another job, none waits on another's. SQLite has one writer at a time (transactions
begun IMMEDIATE): a plain read then write is the claim there.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Collection

from sqlalchemy import ColumnElement, Connection, and_, or_, select, update

from translate_server.documents.job import UNFINISHED
from translate_server.storage.job_tables import document_jobs

_JOBS = document_jobs.c


class JobTakenOverError(Exception):
    """The job's claim is no longer this server's: another server took it over, or the job
    was deleted (cancelled). The run stops and writes nothing more."""

    def __init__(self, job_id: str) -> None:
        super().__init__(f"document job {job_id} is no longer this server's")
        self.job_id = job_id


def server_name() -> str:
    """This process's name in the claims: the host, the process and a random part (a restarted
    process may get its predecessor's pid)."""
    return f"{socket.gethostname()}/{os.getpid()}/{uuid.uuid4().hex[:8]}"


def claimable(now: float) -> ColumnElement[bool]:
    """Unfinished, and no live claim on it."""
    return and_(
        _JOBS.status.in_(UNFINISHED),
        or_(_JOBS.claimed_by.is_(None), _JOBS.lease_until.is_(None), _JOBS.lease_until < now),
    )


def claim_next(
    c: Connection,
    server: str,
    now: float,
    lease_seconds: float,
    formats: Collection[str] | None = None,
) -> str | None:
    """Claim the oldest claimable job for `server` among those of `formats` (the kinds of job
    it can run: None, any); its id, or None when there is none."""
    runnable = claimable(now)
    if formats is not None:
        runnable = and_(runnable, _JOBS.format.in_(formats))
    oldest = (
        select(_JOBS.id)
        .where(runnable)
        .order_by(_JOBS.created_at, _JOBS.id)
        .limit(1)
        .with_for_update(skip_locked=True)
    )
    job_id: str | None = c.execute(oldest).scalar()
    if job_id is None:
        return None
    c.execute(
        update(document_jobs)
        .where(_JOBS.id == job_id)
        .values(
            status="translating",
            claimed_by=server,
            lease_until=now + lease_seconds,
            started_at=now,
            updated_at=now,
            segments_at_start=_JOBS.segments_done,
        )
    )
    return job_id


def renew(
    c: Connection, server: str, job_ids: Collection[str], now: float, lease_seconds: float
) -> set[str]:
    """Extend `server`'s leases on `job_ids`; the ids whose claim is still its own (a job
    deleted, or taken over by another server, is missing)."""
    if not job_ids:
        return set()
    mine = and_(_JOBS.id.in_(job_ids), _JOBS.claimed_by == server)
    c.execute(
        update(document_jobs)
        .where(mine, _JOBS.status == "translating")
        .values(lease_until=now + lease_seconds)
    )
    return set(c.execute(select(_JOBS.id).where(mine)).scalars())


def release(c: Connection, server: str, job_ids: Collection[str]) -> None:
    """Let `server`'s unfinished jobs go, so another server (or this one, restarted) takes
    them at once rather than after their lease."""
    if job_ids:
        c.execute(
            update(document_jobs)
            .where(
                _JOBS.id.in_(job_ids),
                _JOBS.claimed_by == server,
                _JOBS.status == "translating",
            )
            .values(claimed_by=None, lease_until=None)
        )


def hold(c: Connection, server: str, job_id: str, now: float) -> None:
    """Lock the job's row for the write that follows, or raise JobTakenOverError where the
    claim is no longer `server`'s."""
    held = c.execute(
        update(document_jobs)
        .where(_JOBS.id == job_id, _JOBS.claimed_by == server, _JOBS.status == "translating")
        .values(updated_at=now)
    )
    if held.rowcount != 1:
        raise JobTakenOverError(job_id)
