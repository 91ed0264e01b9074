"""Which cores the serving process, vLLM's scheduler and a CPU engine's compute threads use.

Three kinds of work compete for a CPU engine's cores: the serving process (HTTP, admission,
streaming), vLLM's EngineCore (the scheduler; it busy-waits on the worker between steps) and
the worker's OpenMP threads (the model; they spin between steps too). A serving process that
shares a core with either waits for it, and so does every request: an overload refusal,
`/health/live`. `split` keeps the serving process apart:

- the serving process runs on the last `front_end_cpus` cores it may use;
- the engine's OpenMP threads are bound to the others (`VLLM_CPU_OMP_THREADS_BIND`);
- EngineCore gets a core of its own just below the front end's where the engine still keeps
  two per rank; with fewer cores (a 2-core machine) it shares the engine's. Placed with the
  serving process instead, its busy-waiting took half of that core: refusals waited seconds.

EngineCore inherits the affinity of the process that starts it, so the serving process runs
on the scheduler's cores while the engine starts, and moves to its own once it is up.
`shared` leaves all of it to vLLM's defaults and the kernel.

Facts about vLLM 0.32 relied on here (utils/ompmultiprocessing.py):
- `VLLM_CPU_OMP_THREADS_BIND` takes a core list per tensor-parallel rank ("0-3|4-7"); the
  worker sets `OMP_NUM_THREADS` to the list's length and binds the threads (OMP_PLACES, or
  KMP_AFFINITY / GOMP_CPU_AFFINITY when libiomp / libgomp is preloaded). `nobind` and an
  explicit list are the operator's own choice, left alone here.
- Only the CPU backend reads it: on a GPU nothing is placed (EngineCore's scheduling needs
  cores of its own there, beside the serving process).

Pure except `apply` and `pin_process`; no vLLM import.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import MutableMapping, Sequence
from typing import NamedTuple

BIND_VARIABLE = "VLLM_CPU_OMP_THREADS_BIND"
POLICIES = ("split", "shared")


class CpuPlan(NamedTuple):
    """The serving process's cores, vLLM's EngineCore's (the scheduler) and the engine's
    compute threads' (one core list per tensor-parallel rank)."""

    front_end: tuple[int, ...]
    engine: tuple[tuple[int, ...], ...]
    scheduler: tuple[int, ...]

    @property
    def omp_bind(self) -> str:
        """`VLLM_CPU_OMP_THREADS_BIND`'s value for the engine's cores."""
        return "|".join(cpu_list(cores) for cores in self.engine)


class Skipped(NamedTuple):
    """Why nothing is placed (logged at start)."""

    reason: str


def plan(
    policy: str,
    allowed: Sequence[int],
    front_end_cpus: int,
    ranks: int = 1,
    cpu_quota: float | None = None,
    environ: MutableMapping[str, str] | None = None,
) -> CpuPlan | Skipped:
    """The placement for `policy` given the cores this process may use (`allowed`), the
    engine's tensor-parallel `ranks` and a cgroup CPU quota in cores (None: no quota)."""
    if policy == "shared":
        return Skipped("policy shared")
    cores = sorted(allowed)
    if cpu_quota is not None and math.ceil(cpu_quota) < len(cores):
        # A quota shares time, not cores: the cores named here are other containers' too, so
        # reserving one of them reserves nothing.
        return Skipped(f"CPU quota of {cpu_quota:g} cores below the {len(cores)} cores allowed")
    engine_cores = len(cores) - front_end_cpus
    if front_end_cpus < 1 or engine_cores < ranks:
        return Skipped(f"{len(cores)} cores leave none to the engine beside {front_end_cpus}")
    front_end = tuple(cores[engine_cores:])
    if engine_cores >= 2 * ranks + 1:
        # Enough cores: the scheduler gets one of its own, below the front end's.
        engine_cores -= 1
        scheduler: tuple[int, ...] = (cores[engine_cores],)
    else:
        scheduler = tuple(cores[:engine_cores])
    per_rank = engine_cores // ranks
    engine = tuple(tuple(cores[i * per_rank : (i + 1) * per_rank]) for i in range(ranks))
    placement = CpuPlan(front_end=front_end, engine=engine, scheduler=scheduler)
    # An operator's own binding (`nobind`, a core list) wins; this process's own, set by an
    # engine started before, is no operator's.
    if environ is not None and environ.get(BIND_VARIABLE, "auto") not in (
        "auto",
        placement.omp_bind,
    ):
        return Skipped(f"{BIND_VARIABLE} set by the operator")
    return placement


def cpu_list(cores: Sequence[int]) -> str:
    """Cores as a compact list: (0, 1, 2, 5) -> "0-2,5"."""
    parts: list[str] = []
    start = previous = None
    for core in sorted(cores):
        if previous is not None and core == previous + 1:
            previous = core
            continue
        if start is not None:
            parts.append(f"{start}-{previous}" if start != previous else str(start))
        start = previous = core
    if start is not None:
        parts.append(f"{start}-{previous}" if start != previous else str(start))
    return ",".join(parts)


def cgroup_cpu_quota(root: str = "/sys/fs/cgroup") -> float | None:
    """The container's CPU quota in cores ("200000 100000" -> 2.0), from cgroup v2's
    `cpu.max` or v1's `cpu/cpu.cfs_quota_us`; None where there is none."""
    fields = _read_fields(f"{root}/cpu.max")
    if fields is None:
        quota, period = (
            _read_fields(f"{root}/cpu/cpu.cfs_quota_us"),
            _read_fields(f"{root}/cpu/cpu.cfs_period_us"),
        )
        if quota is None or period is None:
            return None
        fields = quota[:1] + period[:1]
    if len(fields) != 2 or fields[0] in ("max", "-1"):
        return None
    try:
        return int(fields[0]) / int(fields[1])
    except (ValueError, ZeroDivisionError):
        return None


def _read_fields(path: str) -> list[str] | None:
    try:
        with open(path, encoding="ascii") as file:
            return file.read().split()
    except OSError:
        return None


def before_engine_start(placement: CpuPlan, environ: MutableMapping[str, str]) -> None:
    """Bind the engine's threads (read by vLLM when it starts its worker) and move this
    process to the scheduler's cores, which the EngineCore it starts inherits."""
    environ[BIND_VARIABLE] = placement.omp_bind
    pin_process(placement.scheduler)


def after_engine_start(placement: CpuPlan) -> None:
    """This process (every thread of it) to its own cores, once its children have theirs."""
    pin_process(placement.front_end)


def pin_process(cores: Sequence[int]) -> None:
    """Pin every thread of this process to `cores`; threads and processes started from now on
    inherit it. (`sched_setaffinity(0)` would move the calling thread alone.)"""
    for task in os.listdir("/proc/self/task"):
        # A thread may end meanwhile.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.sched_setaffinity(int(task), cores)
