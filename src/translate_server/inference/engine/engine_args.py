"""How the settings become vLLM's engine arguments, and which dtype a CPU computes fastest.

Pure given the CPU's feature flags: no engine, no vLLM import (`vllm_engine` passes the result
to `AsyncEngineArgs`).
"""

from __future__ import annotations

from typing import Any

from translate_server.settings import EngineSettings

# The KV cache on a CPU when none is configured: ~45k tokens of SmolLM2-135M in float32.
CPU_KV_CACHE_GIB = 2.0

# CPU flags (/proc/cpuinfo) of the instructions that make bfloat16 fast: without them vLLM's
# CPU kernels convert bfloat16 to float32 and back, and float32 is faster.
BF16_CPU_FLAGS = frozenset({"avx512_bf16", "amx_bf16"})


def cpu_flags(cpuinfo: str | None = None) -> frozenset[str]:
    """The CPU's feature flags, from `/proc/cpuinfo` (empty where there is none)."""
    if cpuinfo is None:
        try:
            with open("/proc/cpuinfo", encoding="utf-8") as file:
                cpuinfo = file.read()
        except OSError:
            return frozenset()
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return frozenset(value.split())
    return frozenset()


def cpu_dtype(flags: frozenset[str]) -> str:
    """`--dtype auto` on a CPU: bfloat16 where the CPU computes it natively (AVX512-BF16 or
    AMX: about twice float32's decode speed), float32 everywhere else."""
    return "bfloat16" if flags & BF16_CPU_FLAGS else "float32"


def engine_args_kwargs(
    settings: EngineSettings, model: str, on_cpu: bool, flags: frozenset[str] | None = None
) -> dict[str, Any]:
    """`AsyncEngineArgs` keyword arguments for `settings` (pure given `flags`, the CPU's
    feature flags; read from /proc/cpuinfo when None)."""
    if on_cpu:
        if settings.dtype == "auto":
            dtype = cpu_dtype(cpu_flags() if flags is None else flags)
        else:
            dtype = settings.dtype
        enforce_eager = True if settings.enforce_eager is None else settings.enforce_eager
    else:
        dtype = settings.dtype
        enforce_eager = bool(settings.enforce_eager)
    kwargs: dict[str, Any] = {
        "model": model,
        "served_model_name": settings.model_name,
        "max_num_seqs": settings.max_num_seqs,
        "max_model_len": settings.max_model_len,
        "dtype": dtype,
        "enforce_eager": enforce_eager,
        "tensor_parallel_size": settings.tensor_parallel_size,
        "seed": settings.seed,
        # On, vLLM keeps its `vllm:*` Prometheus metrics (TTFT, inter-token latency, KV-cache
        # use, running/waiting requests) in prometheus_client's default registry.
        "disable_log_stats": not settings.engine_metrics,
        "enable_log_requests": False,
        # Waiting requests are taken by `SamplingOptions.priority`, then arrival: document
        # jobs (priority 1) never hold up interactive requests (0) in the engine's queue.
        "scheduling_policy": "priority",
    }
    if settings.otlp_traces_endpoint:
        # vLLM exports its own span of every request there (needs its statistics on).
        kwargs["otlp_traces_endpoint"] = settings.otlp_traces_endpoint
    if not on_cpu:
        kwargs["gpu_memory_utilization"] = settings.gpu_memory_utilization
    kv_cache_gib = settings.kv_cache_gib
    if kv_cache_gib is None and on_cpu:
        # Left alone, vLLM on a CPU reserves 92% of the memory node for the KV cache and
        # refuses to start when a little of it is taken (the page cache is enough).
        # VLLM_CPU_KVCACHE_SPACE, where set, still overrides this inside vLLM.
        kv_cache_gib = CPU_KV_CACHE_GIB
    if kv_cache_gib is not None:
        kwargs["kv_cache_memory_bytes"] = int(kv_cache_gib * 2**30)
    if settings.lora or settings.enable_lora:
        # Adapters batched with the base model; at most `max_loras` of them in one batch,
        # all of them held (the service never registers more than that).
        kwargs["enable_lora"] = True
        kwargs["max_loras"] = settings.max_loras
        kwargs["max_lora_rank"] = settings.max_lora_rank
    if settings.max_num_batched_tokens is not None:
        kwargs["max_num_batched_tokens"] = settings.max_num_batched_tokens
    return kwargs
