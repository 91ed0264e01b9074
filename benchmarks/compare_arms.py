"""`compare`'s arms and the command each one runs: one config, and the same engine arguments
for every arm, so that the arms differ only in what stands in front of the engine."""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

ARMS: tuple[str, ...] = ("engine", "translate", "chat", "vllm")
SERVED_NAME = "bench-model"


@dataclass
class CompareConfig:
    model: str
    arms: list[str]
    rounds: int
    concurrency: int
    requests: int
    warmup: int
    stream: bool
    max_num_seqs: int
    max_model_len: int
    dtype: str
    max_num_batched_tokens: int | None
    workload_argv: list[str]
    out_dir: Path
    startup_timeout_s: float
    # vLLM's statistics (its `vllm:*` metrics) cost the serving process CPU on every engine
    # step; every arm keeps them on, or every arm turns them off, never a mix.
    engine_metrics: bool = True


def engine_arguments(cfg: CompareConfig) -> list[str]:
    """The engine arguments every arm gets, as command-line flags (same names everywhere)."""
    args = [
        "--max-num-seqs",
        str(cfg.max_num_seqs),
        "--max-model-len",
        str(cfg.max_model_len),
        "--dtype",
        cfg.dtype,
    ]
    if cfg.max_num_batched_tokens:
        args += ["--max-num-batched-tokens", str(cfg.max_num_batched_tokens)]
    return args


def _translate_server_command() -> list[str]:
    script = Path(sys.executable).parent / "translate-server"
    if script.exists():
        return [str(script)]
    found = shutil.which("translate-server")
    if found:
        return [found]
    return [sys.executable, "-m", "translate_server"]


def engine_arm_command(cfg: CompareConfig, out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "benchmarks.engine_arm",
        "--model",
        cfg.model,
        "--served-model-name",
        SERVED_NAME,
        *engine_arguments(cfg),
        "--concurrency",
        str(cfg.concurrency),
        "--requests",
        str(cfg.requests),
        "--warmup",
        str(cfg.warmup),
        "--json",
        str(out),
        *cfg.workload_argv,
        *([] if cfg.stream else ["--no-stream"]),
        *([] if cfg.engine_metrics else ["--disable-log-stats"]),
    ]


def service_command(cfg: CompareConfig, port: int) -> list[str]:
    return [
        *_translate_server_command(),
        "serve",
        "--model",
        cfg.model,
        "--served-model-name",
        SERVED_NAME,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        *engine_arguments(cfg),
        "--log-format",
        "json",
        "--request-timeout",
        "600",
        # Warm-up requests repeat the workload's first texts: from the cache, /translate
        # would answer some measured requests without the engine that every other arm uses.
        "--translation-cache-size",
        "0",
        *([] if cfg.engine_metrics else ["--no-engine-metrics"]),
    ]


def vllm_command(cfg: CompareConfig, port: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        cfg.model,
        "--served-model-name",
        SERVED_NAME,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        *engine_arguments(cfg),
        "--enforce-eager",
        "--disable-uvicorn-access-log",
        *([] if cfg.engine_metrics else ["--disable-log-stats"]),
    ]
