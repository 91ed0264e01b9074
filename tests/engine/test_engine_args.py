"""How settings become vLLM engine arguments (pure: no engine, no vLLM import)."""

from __future__ import annotations

from translate_server.inference.engine.vllm_engine import engine_args_kwargs
from translate_server.settings import EngineSettings


def test_cpu_defaults():
    kwargs = engine_args_kwargs(EngineSettings(served_model_name="tiny"), "/models/x", True)
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
    kwargs = engine_args_kwargs(settings, "m", True)
    assert kwargs["dtype"] == "bfloat16"
    assert kwargs["enforce_eager"] is False
    assert kwargs["tensor_parallel_size"] == 2
    assert engine_args_kwargs(EngineSettings(enforce_eager=True), "m", False)["enforce_eager"]


def test_engine_metrics_can_be_turned_off():
    settings = EngineSettings(engine_metrics=False)
    assert engine_args_kwargs(settings, "m", True)["disable_log_stats"] is True
