"""How settings become vLLM engine arguments (pure: no engine, no vLLM import)."""

from __future__ import annotations

import pytest

from translate_server.inference.engine.engine_args import cpu_dtype, cpu_flags, engine_args_kwargs
from translate_server.settings import EngineSettings

AVX2_ONLY = frozenset({"sse4_2", "avx", "avx2", "fma"})
AMX = AVX2_ONLY | {"avx512f", "avx512_bf16", "amx_tile", "amx_bf16"}


def test_cpu_defaults():
    settings = EngineSettings(served_model_name="tiny")
    kwargs = engine_args_kwargs(settings, "/models/x", True, flags=AVX2_ONLY)
    assert kwargs["model"] == "/models/x"
    assert kwargs["served_model_name"] == "tiny"
    assert kwargs["dtype"] == "float32"
    assert kwargs["enforce_eager"] is True
    assert kwargs["disable_log_stats"] is False
    assert "gpu_memory_utilization" not in kwargs
    assert "max_num_batched_tokens" not in kwargs
    # A bounded KV cache, not vLLM's 92% of the machine's memory.
    assert kwargs["kv_cache_memory_bytes"] == 2 * 2**30
    # Document jobs ask for a later priority than interactive requests.
    assert kwargs["scheduling_policy"] == "priority"


def test_gpu_defaults():
    settings = EngineSettings(gpu_memory_utilization=0.8, max_num_batched_tokens=4096)
    kwargs = engine_args_kwargs(settings, "org/model", False)
    assert kwargs["served_model_name"] == settings.model  # clients use the model id
    assert kwargs["dtype"] == "auto"
    assert kwargs["enforce_eager"] is False
    assert kwargs["gpu_memory_utilization"] == 0.8
    assert kwargs["max_num_batched_tokens"] == 4096
    assert "kv_cache_memory_bytes" not in kwargs  # sized by gpu_memory_utilization


def test_an_explicit_kv_cache_size_wins_on_both():
    settings = EngineSettings(kv_cache_gib=0.5)
    assert engine_args_kwargs(settings, "m", True)["kv_cache_memory_bytes"] == 2**29
    assert engine_args_kwargs(settings, "m", False)["kv_cache_memory_bytes"] == 2**29


def test_explicit_values_win():
    settings = EngineSettings(dtype="bfloat16", enforce_eager=False, tensor_parallel_size=2)
    kwargs = engine_args_kwargs(settings, "m", True, flags=AVX2_ONLY)
    assert kwargs["dtype"] == "bfloat16"
    assert (
        engine_args_kwargs(EngineSettings(dtype="float32"), "m", True, flags=AMX)["dtype"]
        == "float32"
    )
    assert kwargs["enforce_eager"] is False
    assert kwargs["tensor_parallel_size"] == 2
    assert engine_args_kwargs(EngineSettings(enforce_eager=True), "m", False)["enforce_eager"]


def test_engine_metrics_can_be_turned_off():
    settings = EngineSettings(engine_metrics=False)
    assert engine_args_kwargs(settings, "m", True)["disable_log_stats"] is True


def test_vllm_exports_its_spans_only_where_traces_go():
    assert "otlp_traces_endpoint" not in engine_args_kwargs(EngineSettings(), "m", True)
    settings = EngineSettings(otlp_traces_endpoint="http://jaeger:4317")
    assert engine_args_kwargs(settings, "m", True)["otlp_traces_endpoint"] == "http://jaeger:4317"


@pytest.mark.parametrize(
    ("flags", "dtype"),
    [
        (AVX2_ONLY, "float32"),
        (AVX2_ONLY | {"avx512f", "avx512bw"}, "float32"),  # AVX-512 without its bf16 extension
        (AVX2_ONLY | {"avx512_bf16"}, "bfloat16"),
        (AVX2_ONLY | {"amx_bf16"}, "bfloat16"),
        (frozenset(), "float32"),  # no /proc/cpuinfo
    ],
)
def test_auto_dtype_on_cpu_follows_the_bf16_instructions(flags, dtype):
    assert cpu_dtype(flags) == dtype
    assert engine_args_kwargs(EngineSettings(), "m", True, flags=flags)["dtype"] == dtype
    # A GPU keeps the model's own dtype whatever the host CPU has.
    assert engine_args_kwargs(EngineSettings(), "m", False, flags=flags)["dtype"] == "auto"


def test_cpu_flags_come_from_cpuinfo():
    cpuinfo = (
        "processor\t: 0\nmodel name\t: Intel(R) Xeon(R)\n"
        "flags\t\t: fpu avx2 avx512_bf16 amx_tile amx_bf16\n\nprocessor\t: 1\n"
    )
    assert cpu_flags(cpuinfo) == {"fpu", "avx2", "avx512_bf16", "amx_tile", "amx_bf16"}
    assert cpu_flags("Features\t: fp asimd bf16\n") == {"fp", "asimd", "bf16"}  # arm64
    assert cpu_flags("processor : 0\n") == frozenset()
