"""Where log lines go: structlog's own lines straight to stderr, stdlib loggers (uvicorn,
vLLM) through a formatter with the same renderer, JSON or a console view."""

from __future__ import annotations

import logging
import sys
from typing import Any

import msgspec
import structlog


def configure_logging(
    log_format: str = "auto", level: str = "info", front_end: int | None = None
) -> None:
    """Our own lines go straight from structlog to stderr; stdlib loggers (uvicorn, vLLM) come
    through a formatter with the same renderer, so every line has one shape. With several
    front-end processes, each line names the `front_end` that wrote it."""
    use_console = log_format == "console" or (log_format == "auto" and sys.stderr.isatty())
    level_number = logging.getLevelName(level.upper())
    timestamper = structlog.processors.TimeStamper(fmt="iso", utc=True)
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        timestamper,
    ]
    if front_end is not None:
        shared.append(_FrontEnd(front_end))
    if use_console:
        own_renderer: Any = structlog.dev.ConsoleRenderer()
        stdlib_renderer: Any = own_renderer
        factory: Any = structlog.PrintLoggerFactory(sys.stderr)
    else:
        shared.append(structlog.processors.format_exc_info)
        # Bytes straight to the stream: no stdlib LogRecord, no str round trip.
        own_renderer = structlog.processors.JSONRenderer(serializer=_json_bytes)
        stdlib_renderer = structlog.processors.JSONRenderer(serializer=_json_str)
        factory = structlog.BytesLoggerFactory(sys.stderr.buffer)
    structlog.configure(
        processors=[*shared, own_renderer],
        wrapper_class=structlog.make_filtering_bound_logger(level_number),
        logger_factory=factory,
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[
                structlog.stdlib.ExtraAdder(),
                structlog.stdlib.add_logger_name,
                *shared,
            ],
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                stdlib_renderer,
            ],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level_number)
    # uvicorn's access log would duplicate our canonical request line.
    logging.getLogger("uvicorn.access").disabled = True
    for name in ("uvicorn", "uvicorn.error", "vllm"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True


def _json_bytes(obj: Any, default: Any = None, **_: Any) -> bytes:
    # structlog passes its fallback for values JSON has no form for (exceptions, paths...).
    return msgspec.json.encode(obj, enc_hook=default or repr)


def _json_str(obj: Any, default: Any = None, **_: Any) -> str:
    return _json_bytes(obj, default).decode()


class _FrontEnd:
    """Adds `front_end=<index>` to every line of one front-end process."""

    def __init__(self, index: int) -> None:
        self.index = index

    def __call__(self, logger: Any, method: str, event: dict[str, Any]) -> dict[str, Any]:
        event["front_end"] = self.index
        return event
