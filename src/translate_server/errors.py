"""Every error answer, of both surfaces and of the framework itself, is built here.

Services raise `ApiError`s (or the engine's own exceptions); `EXCEPTION_HANDLERS` turns each
into the OpenAI envelope `{"error": {"message", "type", "param", "code"}}`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import msgspec
import structlog
from litestar import MediaType, Request, Response
from litestar.exceptions import HTTPException, NotFoundException, ValidationException
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR

from translate_server.engine import EngineDeadError, PromptTooLongError
from translate_server.protocol.errors import ErrorBody, ErrorResponse

log = structlog.get_logger("translate_server.errors")


class ApiError(Exception):
    status_code = 400
    type = "invalid_request_error"
    code: str | None = None

    def __init__(
        self,
        message: str,
        *,
        param: str | None = None,
        code: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        if code is not None:
            self.code = code
        self.headers = headers or {}


class InvalidRequestError(ApiError):
    pass


class PayloadTooLargeError(ApiError):
    status_code = 413
    code = "payload_too_large"


class UnsupportedMediaTypeError(ApiError):
    status_code = 415
    code = "unsupported_media_type"


class AuthenticationError(ApiError):
    status_code = 401
    type = "authentication_error"
    code = "invalid_api_key"


class ModelNotFoundError(ApiError):
    status_code = 404
    code = "model_not_found"

    def __init__(self, model: str, available: str) -> None:
        super().__init__(
            f"The model `{model}` does not exist. This server serves `{available}`.",
            param="model",
        )


class OverloadedError(ApiError):
    status_code = 503
    type = "overloaded_error"
    code = "overloaded"

    def __init__(self, message: str, retry_after: float) -> None:
        # Whole seconds for `Retry-After`, milliseconds for clients that honour the finer one.
        super().__init__(
            message,
            headers={
                "Retry-After": str(max(1, math.ceil(retry_after))),
                "Retry-After-Ms": str(max(1, int(retry_after * 1000))),
            },
        )


class UnavailableError(ApiError):
    status_code = 503
    type = "service_unavailable_error"
    code = "engine_unavailable"


class EngineFailedError(ApiError):
    """The engine took the request and then failed it: it died, or shutdown aborted it.

    502, never 503: every 503 means that nothing reached an engine, which is what lets a load
    balancer replay a 503 on another replica. This request may have done work: not replayed.
    """

    status_code = 502
    type = "server_error"
    code = "engine_failed"


class DeadlineExceededError(ApiError):
    status_code = 504
    type = "timeout_error"
    code = "request_timeout"


def error_response(
    status_code: int,
    message: str,
    type_: str,
    *,
    param: str | None = None,
    code: str | None = None,
    headers: dict[str, str] | None = None,
) -> Response[ErrorResponse]:
    return Response(
        ErrorResponse(error=ErrorBody(message=message, type=type_, param=param, code=code)),
        status_code=status_code,
        media_type=MediaType.JSON,
        headers=headers,
    )


_encode = msgspec.json.Encoder().encode


def error_body(exc: ApiError) -> ErrorBody:
    return ErrorBody(message=exc.message, type=exc.type, param=exc.param, code=exc.code)


# A compatible API's own error answer: (status, ErrorBody) -> (its status, its body).
ErrorShape = Callable[[int, ErrorBody], tuple[int, Any]]


def encode_error(
    exc: ApiError, shape: ErrorShape | None = None
) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """Status, headers and body of an error answered below the framework (plain ASGI)."""
    error = error_body(exc)
    status, payload = (exc.status_code, ErrorResponse(error=error)) if shape is None else \
        shape(exc.status_code, error)
    body = _encode(payload)
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode())]
    headers += [(k.lower().encode("latin-1"), v.encode("latin-1"))
                for k, v in exc.headers.items()]
    return status, headers, body


def error_payload(exc: BaseException) -> ErrorBody:
    """The envelope body for an error met mid-stream, after a 200 was already sent."""
    if isinstance(exc, EngineDeadError):
        exc = _engine_unavailable()
    if isinstance(exc, ApiError):
        return error_body(exc)
    return ErrorBody(message="The engine failed while generating.", type="server_error",
                     code="engine_error")


def _api_error(_: Request, exc: ApiError) -> Response[ErrorResponse]:
    return error_response(
        exc.status_code, exc.message, exc.type, param=exc.param, code=exc.code,
        headers=exc.headers,
    )


def _validation_error(_: Request, exc: ValidationException) -> Response[ErrorResponse]:
    # Litestar reports each failed field as {"message", "key", "source"}; the key is the
    # field's path in the body (e.g. `messages[0].role`), which OpenAI calls `param`.
    problems = exc.extra if isinstance(exc.extra, list) else []
    first: dict[str, Any] = problems[0] if problems and isinstance(problems[0], dict) else {}
    detail = str(first.get("message") or exc.detail)
    param = _body_param(first.get("key"), detail)
    message = f"Invalid `{param}`: {detail}" if param else detail
    return error_response(400, message, "invalid_request_error", param=param,
                          code="invalid_value")


_MISSING_FIELD = "Object missing required field `"


def _body_param(key: str | None, detail: str) -> str | None:
    """The JSON path of the offending field; for a missing field, the field itself."""
    parent = None if key in (None, "", "data") else key
    if detail.startswith(_MISSING_FIELD):
        missing = detail[len(_MISSING_FIELD):].rstrip("`")
        return f"{parent}.{missing}" if parent else missing
    return parent


_HTTP_ERROR_CODES = {
    400: "invalid_request",
    401: "invalid_api_key",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "rate_limit_exceeded",
}


def _http_error(request: Request, exc: HTTPException) -> Response[ErrorResponse]:
    status = exc.status_code
    if isinstance(exc, NotFoundException) and exc.detail == "Not Found":
        message = f"No route for {request.method} {request.url.path}."
    else:
        message = exc.detail or "Request failed."
    type_ = "invalid_request_error" if status < 500 else "server_error"
    return error_response(status, message, type_, code=_HTTP_ERROR_CODES.get(status),
                          headers=exc.headers)


def _engine_unavailable() -> UnavailableError:
    return UnavailableError("The inference engine is not running.")


def _engine_dead(_: Request, exc: EngineDeadError) -> Response[ErrorResponse]:
    return _api_error(_, _engine_unavailable())


def _prompt_too_long(_: Request, exc: PromptTooLongError) -> Response[ErrorResponse]:
    return error_response(400, str(exc), "invalid_request_error", param="messages",
                          code="context_length_exceeded")


def _undecodable_body(_: Request, exc: UnicodeDecodeError) -> Response[ErrorResponse]:
    # Litestar lets a body that is not UTF-8 escape its JSON decoding as this error.
    return error_response(400, "The request body is not valid UTF-8 JSON.",
                          "invalid_request_error", code="invalid_encoding")


def _too_deeply_nested(_: Request, exc: RecursionError) -> Response[ErrorResponse]:
    # The JSON decoder gives up on pathological nesting with this error.
    return error_response(400, "The request body is nested too deeply.",
                          "invalid_request_error", code="invalid_json")


def _internal_error(request: Request, exc: Exception) -> Response[ErrorResponse]:
    log.error("unhandled_error", path=request.url.path, exc_info=exc)
    return error_response(HTTP_500_INTERNAL_SERVER_ERROR, "Internal server error.",
                          "server_error", code="internal_error")


def note_error(scope: Any, error: ErrorBody) -> None:
    """Put the error's code in the request's log line (its record, when there is one)."""
    _note(scope.get("state", {}).get("record"), error)


def _note(record: Any, error: ErrorBody) -> None:
    if record is not None:
        record.error_code = error.code or error.type


def stream_failure(exc: BaseException, record: Any) -> ErrorResponse:
    """The last event of a stream that failed after its 200 was sent. The failure is noted in
    the request's log line, and logged with its traceback when it was not an expected one."""
    if not isinstance(exc, ApiError | EngineDeadError):
        log.error("stream_failed", exc_info=exc)
    error = error_payload(exc)
    _note(record, error)
    return ErrorResponse(error=error)


def _noted(handler: Callable[[Request, Any], Response[ErrorResponse]]) -> Any:
    def handle(request: Request, exc: Exception) -> Response[ErrorResponse]:
        response = handler(request, exc)
        note_error(request.scope, response.content.error)
        return response

    return handle


EXCEPTION_HANDLERS = {
    exc_type: _noted(handler)
    for exc_type, handler in (
        (ApiError, _api_error),
        (ValidationException, _validation_error),
        (HTTPException, _http_error),
        (EngineDeadError, _engine_dead),
        (PromptTooLongError, _prompt_too_long),
        (UnicodeDecodeError, _undecodable_body),
        (RecursionError, _too_deeply_nested),
        (Exception, _internal_error),
    )
}
