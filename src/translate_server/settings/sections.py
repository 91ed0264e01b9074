"""The settings: one frozen struct per concern, each field its option's only declaration.

A field's annotation says everything `options.py` turns into a flag, a variable, `--help` and
the row of docs/configuration.md: `Annotated[T, Meta(description=..., <bounds>)]`, `| None`
outside when unset is allowed, `Literal[...]` for a choice. The order of the fields is the
order of the options.

The engine's section, the largest, is in `engine_section.py`, the callers' limits (the base of
`LimitSettings`) in `caller_limits.py`; `Settings` here lists them all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from translate_server.settings.caller_limits import CallerLimitSettings
from translate_server.settings.engine_section import DEFAULT_MODEL, EngineSettings
from translate_server.settings.origins import normalized_origin
from translate_server.settings.section import Section

__all__ = [
    "DEFAULT_MODEL",
    "DocumentSettings",
    "EngineSettings",
    "LimitSettings",
    "ServerSettings",
    "Settings",
    "StorageSettings",
    "TranslationSettings",
]


class LimitSettings(CallerLimitSettings, frozen=True):
    """The request and engine limits; the callers' own (`CallerLimitSettings`) come first."""

    max_queued_requests: (
        Annotated[
            int,
            Meta(
                description="Requests allowed to wait beyond the running slots before new ones "
                "are turned away (default: 4 x max-num-seqs)."
            ),
        ]
        | None
    ) = None
    request_timeout: Annotated[
        float, Meta(description="Seconds a request may take before it is aborted (504).")
    ] = 60.0
    shutdown_grace: Annotated[
        float, Meta(description="Seconds in-flight requests get to finish after SIGTERM.")
    ] = 30.0
    engine_failure_threshold: Annotated[
        int,
        Meta(
            ge=1,
            description="Engine failures in a row, with no success between them, after which "
            "/health and /health/live answer 503 `engine_failing` (so that Compose or "
            "Kubernetes restarts the server); one success clears the count.",
        ),
    ] = 5
    max_body_bytes: Annotated[
        int, Meta(description="Largest request body accepted (413 beyond).")
    ] = 1_048_576
    max_text_chars: Annotated[int, Meta(description="Characters per text to translate.")] = 20_000
    max_texts: Annotated[int, Meta(description="Texts per /translate request.")] = 128
    max_pieces: Annotated[
        int,
        Meta(
            description="Engine requests one /translate request may need after splitting (text "
            "nodes of HTML, parts of long texts; repeats count once)."
        ),
    ] = 1024
    max_messages: Annotated[int, Meta(description="Messages per chat completion request.")] = 256
    max_tokens: Annotated[
        int,
        Meta(
            description="Most tokens one completion gets: OpenAI requests asking for more are "
            "shortened to it, as vLLM's server does; /translate refuses them."
        ),
    ] = 4096

    def queue_limit(self, max_num_seqs: int) -> int:
        """Requests allowed to wait beyond the engine's running slots."""
        if self.max_queued_requests is not None:
            return self.max_queued_requests
        # Enough to refill every slot four times over: the engine never idles for lack of
        # work, and a newcomer waits a few batches at most, never without bound.
        return 4 * max_num_seqs


class TranslationSettings(Section, frozen=True):
    translation_cache_size: Annotated[
        int, Meta(description="Finished translations kept in memory (LRU; 0 disables the cache).")
    ] = 10_000
    detection_accuracy: Annotated[
        Literal["low", "high"],
        Meta(
            description="Source-language detection: low (fast, ~160 MB) or high (better on "
            "short phrases, ~1.3 GB and ~40 s to load)."
        ),
    ] = "low"
    prompt_templates: (
        Annotated[
            str,
            Meta(
                description="TOML file of translation prompt templates per model family (added "
                "to the bundled ones)."
            ),
        ]
        | None
    ) = None
    quality_estimate_models: (
        Annotated[
            str,
            Meta(
                description="TOML file of quality-estimate models per model family, as "
                "`python -m translate_server.quality.estimate_fit` writes them (added to the "
                "bundled ones): a model you serve, calibrated on your own translations."
            ),
        ]
        | None
    ) = None
    glossary_db: (
        Annotated[
            str,
            Meta(
                description="SQLite file where DeepL glossaries and usage are kept (default: "
                "glossaries.sqlite3 in --model-cache-dir)."
            ),
        ]
        | None
    ) = None
    memory_db: (
        Annotated[
            str,
            Meta(
                description="SQLite file where translation memories are kept (default: "
                "memories.sqlite3 in --model-cache-dir)."
            ),
        ]
        | None
    ) = None
    max_memory_entries: Annotated[
        int,
        Meta(
            gt=0,
            description="Entries one translation memory may hold (an import beyond is refused "
            "whole, 413).",
        ),
    ] = 200_000
    max_memory_bytes: Annotated[
        int,
        Meta(gt=0, description="Largest translation memory file accepted for import (413 beyond)."),
    ] = 50 * 2**20
    suggestions_memory: Annotated[
        str,
        Meta(
            max_length=200,
            description="Name of the translation memory that LibreTranslate's /suggest adds "
            "to, one per API key, made on first use; empty: suggestions are refused (403).",
        ),
    ] = "suggestions"
    quality_guard: Annotated[
        bool,
        Meta(
            description="Mask placeholders, URLs and code before translating and check each "
            "answer (empty, echo, wrong language, lost placeholder): one retry, then `warnings` "
            "in the response (docs/quality.md)."
        ),
    ] = True
    refuse_unsupported_targets: Annotated[
        bool,
        Meta(
            description="Refuse with a 400 a target language the served model was measured not "
            "to write (its family's `support` table in the prompt templates); otherwise it is "
            "translated with the warning `unsupported_target_language`."
        ),
    ] = False


class DocumentSettings(Section, frozen=True):
    documents: Annotated[
        bool,
        Meta(
            description="Translate whole files: the document routes (ours, DeepL's and "
            "LibreTranslate's) and the translator page's file panel (`--no-documents` turns "
            "them off)."
        ),
    ] = True
    document_dir: Annotated[
        str,
        Meta(
            description="Where document jobs and their files are kept (an SQLite database, "
            "without --database-url); jobs left unfinished resume on start."
        ),
    ] = str(Path("~/.cache/translate-server/documents").expanduser())
    document_retention: Annotated[
        float,
        Meta(
            gt=0,
            description="Seconds a finished document job (its result) is kept before it is "
            "deleted.",
        ),
    ] = 86_400.0
    max_document_bytes: Annotated[
        int, Meta(gt=0, description="Largest document file accepted (413 beyond).")
    ] = 10 * 2**20
    max_document_chars: Annotated[
        int, Meta(gt=0, description="Characters to translate per document (413 beyond).")
    ] = 1_000_000
    max_documents_per_key: Annotated[
        int,
        Meta(
            gt=0,
            description="Documents one API key (or, without keys, all clients together) may "
            "have in translation at once (429 beyond).",
        ),
    ] = 4
    document_share: Annotated[
        float,
        Meta(
            gt=0,
            le=1,
            description="Share of the engine's slots (--max-num-seqs) that document jobs may "
            "fill at once; they also run at a lower engine priority than interactive requests.",
        ),
    ] = 0.5
    document_lease: Annotated[
        float,
        Meta(
            gt=0,
            description="Seconds a server's claim on a running document job or batch holds "
            "without its heartbeat (renewed every third of it): a dead server's jobs are taken "
            "over by another once it runs out.",
        ),
    ] = 30.0
    max_batch_file_bytes: Annotated[
        int,
        Meta(
            gt=0,
            description="Largest JSONL file /v1/files takes for OpenAI batches (413 beyond).",
        ),
    ] = 100 * 2**20
    max_batch_requests: Annotated[
        int, Meta(gt=0, description="Requests (lines) per batch file (400 beyond).")
    ] = 50_000
    max_batch_files_per_key: Annotated[
        int,
        Meta(
            gt=0,
            description="Batch files one API key (or, without keys, all clients together) may "
            "keep uploaded at once (429 beyond; deleting one makes room).",
        ),
    ] = 100
    max_batches_per_key: Annotated[
        int,
        Meta(
            gt=0,
            description="Batches one API key (or, without keys, all clients together) may have "
            "in progress at once (429 beyond). Their lines run as document jobs do: at the "
            "documents' low priority, within --document-share.",
        ),
    ] = 4

    def engine_requests(self, max_num_seqs: int) -> int:
        """Engine requests all document jobs together may have outstanding: a share of the
        engine's slots, so interactive requests always find free ones."""
        return max(1, int(max_num_seqs * self.document_share))


class ServerSettings(Section, frozen=True):
    host: Annotated[str, Meta(description="Address to listen on.")] = "127.0.0.1"
    port: Annotated[int, Meta(description="Port to listen on.")] = 8000
    log_format: Annotated[
        Literal["auto", "json", "console"],
        Meta(description="Log output: json, console, or auto (console on a TTY)."),
    ] = "auto"
    log_level: Annotated[
        Literal["debug", "info", "warning", "error"], Meta(description="Minimum log level.")
    ] = "info"
    # A tuple is a repeatable flag and a comma-separated variable. `extra` spells the flag in
    # the singular (`--api-key`, one key each) and adds a second option naming a file whose
    # lines are more keys (`--api-key-file`): both feed this one field.
    api_keys: Annotated[
        tuple[str, ...],
        Meta(
            description="API key clients must send as a bearer token (repeatable; "
            "comma-separated in the variable).",
            extra={
                "option": "api_key",
                "file_option": "api_key_file",
                "file_description": "File with one API key per line.",
            },
        ),
    ] = ()
    metrics_require_key: Annotated[
        bool, Meta(description="Put /metrics behind the API key too.")
    ] = False
    cors_origins: Annotated[
        tuple[str, ...],
        Meta(
            description="Origins whose browser pages may call the API (CORS), e.g. "
            "`https://app.example.com`, or `*` for any (repeatable; comma-separated in the "
            "variable). None by default: no CORS headers, except on LibreTranslate's, "
            "Google's and DeepLX's routes (`/libretranslate/`, `/language/translate/v2/`, "
            "`/v3/projects/`, `/deeplx/`), which answer any origin as LibreTranslate does."
        ),
    ] = ()
    ui: Annotated[
        bool, Meta(description="Serve the translator page at `/` (`--no-ui` turns it off).")
    ] = True
    api_processes: Annotated[
        int,
        Meta(
            ge=1,
            le=64,
            description="HTTP front-end processes over one engine (1: one process). Above 1 "
            "they share the port, the admission count and /metrics; process 0 keeps the stores "
            "and document jobs.",
        ),
    ] = 1
    admin_key: (
        Annotated[
            str,
            Meta(
                description="Bearer key of the admin routes (`/admin/adapters`: load and unload "
                "adapters at run time); without it they answer 404."
            ),
        ]
        | None
    ) = None

    def __post_init__(self) -> None:
        # Compared with the browser's `Origin` header as it spells it; a malformed one is a
        # settings error at start, not a page that is silently refused.
        origins = tuple(normalized_origin(origin) for origin in self.cors_origins)
        msgspec.structs.force_setattr(self, "cors_origins", origins)


class StorageSettings(Section, frozen=True):
    database_url: (
        Annotated[
            str,
            Meta(
                description="Database of the memories, glossaries, usage and document jobs: "
                "postgresql://user:password@host/database keeps them all in one PostgreSQL "
                "database that several replicas share; unset, each store is an SQLite file "
                "(--memory-db, --glossary-db, --document-dir)."
            ),
        ]
        | None
    ) = None


class Settings(Section, frozen=True):
    # The sections in the order `--help` and the configuration table list their options.
    engine: EngineSettings = EngineSettings()
    limits: LimitSettings = LimitSettings()
    translation: TranslationSettings = TranslationSettings()
    documents: DocumentSettings = DocumentSettings()
    server: ServerSettings = ServerSettings()
    storage: StorageSettings = StorageSettings()
