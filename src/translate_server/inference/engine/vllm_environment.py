"""The process set up for vLLM before its first import: the variables it reads, and the CPU
placement applied before its engine starts (`cpu_placement` plans it). No vLLM import here;
the adapter (`vllm_engine`) and the shared engine core (`vllm_shared_core`) call it first."""

from __future__ import annotations

import os

import structlog

from translate_server.inference.engine import cpu_placement
from translate_server.settings import EngineSettings

log = structlog.get_logger(__name__)


def prepare_vllm_environment() -> bool:
    """Set vLLM's environment before its first import; returns True on a CPU-only machine."""
    os.environ.setdefault("VLLM_NO_USAGE_STATS", "1")
    # Our logging pipeline (structlog over stdlib) formats vLLM's records: vLLM must not
    # install its own handler, so its `vllm.*` loggers propagate to the root logger.
    os.environ.setdefault("VLLM_CONFIGURE_LOGGING", "0")
    import torch

    on_cpu = not torch.cuda.is_available()
    if on_cpu:
        os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    return on_cpu


def place_on_cpus(settings: EngineSettings) -> cpu_placement.CpuPlan | None:
    """Apply `--cpu-placement` before the engine starts: its worker reads the binding, and
    EngineCore inherits this process's affinity (see `cpu_placement`); the serving process
    moves to its own cores once the engine is up."""
    placement = cpu_placement.plan(
        settings.cpu_placement,
        sorted(os.sched_getaffinity(0)),
        settings.front_end_cpus,
        ranks=settings.tensor_parallel_size,
        cpu_quota=cpu_placement.cgroup_cpu_quota(),
        environ=os.environ,
    )
    if isinstance(placement, cpu_placement.Skipped):
        log.info("cpu_placement", policy=settings.cpu_placement, skipped=placement.reason)
        return None
    cpu_placement.before_engine_start(placement, os.environ)
    log.info(
        "cpu_placement",
        policy=settings.cpu_placement,
        front_end=cpu_placement.cpu_list(placement.front_end),
        scheduler=cpu_placement.cpu_list(placement.scheduler),
        engine=placement.omp_bind,
    )
    return placement
