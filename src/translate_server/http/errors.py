"""Every error answer, of both surfaces, the compatible APIs, the gate, streams and the framework
itself, is built here, by one function: `answer_for` classifies any exception into a status,
an OpenAI error body and headers, and `render` puts that body into the envelope
`{"error": {"message", "type", "param", "code"}}` or into a compatible API's own shape.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import msgspec
import structlog
from litestar import MediaType, Request, Response
from litestar.exceptions import HTTPException, NotFoundException, ValidationException

from translate_server.errors import (
    ApiError,
    QuotaExceededError,
    RateLimitedError,
    StorageUnavailableError,
    UnavailableError,
)
from translate_server.inference.engine import (
    EngineDeadError,
    EngineRejectedError,
    PromptTooLongError,
)
from translate_server.wire import ErrorBody, ErrorResponse

if TYPE_CHECKING:
    from litestar.types import ExceptionHandlersMap, Scope

    from translate_server.observability.record import RequestRecord

log = structlog.get_logger(__name__)

# A compatible API's own error answer: (status, error body) -> (its status, its payload).
ErrorShape = Callable[[int, ErrorBody], tuple[int, Any]]


class ErrorAnswer(NamedTuple):
    status: int
    error: ErrorBody
    headers: dict[str, str]


def answer_for(exc: BaseException, request: Request[Any, Any, Any] | None = None) -> ErrorAnswer:
    """The answer to any exception: a client's mistake is a 4xx naming it, the engine's
    absence a 503, and anything unexpected a logged 500 that reveals nothing."""
    if isinstance(exc, EngineDeadError):
        exc = UnavailableError("The inference engine is not running.")
    if isinstance(exc, StorageUnavailableError):
        # The client hears only that the database is unavailable; the log says which and why.
        log.warning(
            "database_unavailable",
            url=exc.url,
            reason=exc.reason,
            path=request.url.path if request else None,
        )
    if isinstance(exc, ApiError):
        return ErrorAnswer(
            exc.status_code, _body(exc.message, exc.type, exc.param, exc.code), exc.headers
        )
    if isinstance(exc, ValidationException):
        return _validation_error(exc)
    if isinstance(exc, HTTPException):
        return _http_error(exc, request)
    if isinstance(exc, EngineRejectedError):
        return _client_error(str(exc), None, param=exc.param)
    if isinstance(exc, PromptTooLongError):
        return _client_error(str(exc), "context_length_exceeded", param="messages")
    if isinstance(exc, UnicodeDecodeError):
        # Litestar lets a body that is not UTF-8 escape its JSON decoding as this error.
        return _client_error("The request body is not valid UTF-8 JSON.", "invalid_encoding")
    if isinstance(exc, RecursionError):
        # The JSON decoder gives up on pathological nesting with this error.
        return _client_error("The request body is nested too deeply.", "invalid_json")
    log.error("unhandled_error", path=request.url.path if request else None, exc_info=exc)
    return ErrorAnswer(
        500, _body("Internal server error.", "server_error", None, "internal_error"), {}
    )


# The limits' refusals as each family of clients knows them, in one table: a rate limit is a
# 429 everywhere (retry after `Retry-After`); a spent monthly quota is OpenAI's 429
# `insufficient_quota` (`x-should-retry: false`), DeepL's 456 (its clients raise
# `QuotaExceededException`), Google's 403 `dailyLimitExceeded`, LibreTranslate's 429.
RATE_LIMITED = RateLimitedError.code
QUOTA_EXCEEDED = QuotaExceededError.code
Surface = Literal["deepl", "google", "libretranslate"]
_LIMIT_STATUS: dict[Surface, int] = {"deepl": 456, "google": 403, "libretranslate": 429}


def limit_status(surface: Surface, status: int, error: ErrorBody) -> int:
    """`status` as `surface`'s clients expect it for a limit's refusal (else unchanged)."""
    return _LIMIT_STATUS[surface] if error.code == QUOTA_EXCEEDED else status


def render(answer: ErrorAnswer, shape: ErrorShape | None = None) -> tuple[int, Any]:
    """Status and payload of an answer: the OpenAI envelope, or `shape`'s."""
    if shape is None:
        return answer.status, ErrorResponse(error=answer.error)
    return shape(answer.status, answer.error)


_encode = msgspec.json.Encoder().encode


def encode_error(
    exc: BaseException, shape: ErrorShape | None = None
) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """Status, headers and body of an error answered below the framework (plain ASGI)."""
    answer = answer_for(exc)
    status, payload = render(answer, shape)
    body = _encode(payload)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [
        (k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in answer.headers.items()
    ]
    return status, headers, body


def stream_failure(exc: BaseException, record: RequestRecord | None) -> ErrorResponse:
    """The last event of a stream that failed after its 200 was sent. The failure is noted in
    the request's log line, and logged with its traceback when it was not an expected one."""
    if not isinstance(exc, ApiError | EngineDeadError):
        log.error("stream_failed", exc_info=exc)
        error = _body("The engine failed while generating.", "server_error", None, "engine_error")
    else:
        error = answer_for(exc).error
    _note(record, error)
    return ErrorResponse(error=error)


def note_error(scope: Scope, error: ErrorBody) -> None:
    """Put the error's code in the request's log line (its record, when there is one)."""
    _note(scope.get("state", {}).get("record"), error)


def _note(record: RequestRecord | None, error: ErrorBody) -> None:
    if record is not None:
        record.error_code = error.code or error.type


def exception_handlers(shape: ErrorShape | None = None) -> ExceptionHandlersMap:
    """Litestar's handler table: every exception answered through `answer_for`, in `shape`."""

    def handle(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
        answer = answer_for(exc, request)
        note_error(request.scope, answer.error)
        status, payload = render(answer, shape)
        return Response(
            payload, status_code=status, media_type=MediaType.JSON, headers=answer.headers or None
        )

    return {Exception: handle}


def _body(message: str, type_: str, param: str | None, code: str | None) -> ErrorBody:
    return ErrorBody(message=message, type=type_, param=param, code=code)


def _client_error(message: str, code: str | None, *, param: str | None = None) -> ErrorAnswer:
    return ErrorAnswer(400, _body(message, "invalid_request_error", param, code), {})


def _validation_error(exc: ValidationException) -> ErrorAnswer:
    # Litestar reports each failed field as {"message", "key", "source"}; the key is the
    # field's path in the body (e.g. `messages[0].role`), which OpenAI calls `param`.
    problems = exc.extra if isinstance(exc.extra, list) else []
    first: dict[str, Any] = problems[0] if problems and isinstance(problems[0], dict) else {}
    detail = str(first.get("message") or exc.detail)
    param = _body_param(first.get("key"), detail)
    message = f"Invalid `{param}`: {detail}" if param else detail
    return _client_error(message, "invalid_value", param=param)


_MISSING_FIELD = "Object missing required field `"


def _body_param(key: str | None, detail: str) -> str | None:
    """The JSON path of the offending field; for a missing field, the field itself."""
    parent = None if key in (None, "", "data") else key
    if detail.startswith(_MISSING_FIELD):
        missing = detail[len(_MISSING_FIELD) :].rstrip("`")
        return f"{parent}.{missing}" if parent else missing
    return parent


_HTTP_ERROR_CODES = {
    400: "invalid_request",
    401: "invalid_api_key",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
}


def _http_error(exc: HTTPException, request: Request[Any, Any, Any] | None) -> ErrorAnswer:
    status = exc.status_code
    if isinstance(exc, NotFoundException) and exc.detail == "Not Found" and request is not None:
        message = f"No route for {request.method} {request.url.path}."
    else:
        message = exc.detail or "Request failed."
    type_ = "invalid_request_error" if status < 500 else "server_error"
    return ErrorAnswer(
        status, _body(message, type_, None, _HTTP_ERROR_CODES.get(status)), dict(exc.headers or {})
    )
