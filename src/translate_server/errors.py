"""What can go wrong with a request, as exceptions that know their status, OpenAI type and
code. Services raise them; `http.errors` alone turns them (and every other exception) into
answers.
"""

from __future__ import annotations

import math


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


class LanguageNotDetectedError(InvalidRequestError):
    """A text whose language could not be detected. `index` says which text of a batch it is
    (None for a request of one text), so that a caller may translate the others."""

    code = "language_not_detected"

    def __init__(self, message: str, *, param: str, index: int | None = None) -> None:
        super().__init__(message, param=param)
        self.index = index


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


class AdapterNotFoundError(ApiError):
    """An adapter named on the admin routes that is not loaded."""

    status_code = 404
    code = "adapter_not_found"


class AdapterConflictError(ApiError):
    """An adapter that cannot be loaded as asked: its name is taken, or every place is."""

    status_code = 409
    code = "adapter_conflict"


class UnsupportedDocumentFormatError(ApiError):
    code = "unsupported_document_format"


class InvalidDocumentError(ApiError):
    """A file of a supported format that its library cannot read (corrupt, wrong encoding)."""

    code = "invalid_document"


class DocumentNotFoundError(ApiError):
    """An unknown document id, or a key or owner that does not match it: the same answer, so
    that nobody learns which ids exist."""

    status_code = 404
    code = "document_not_found"


class MemoryNotFoundError(ApiError):
    """An unknown memory id, or one that another API key owns: the same answer."""

    status_code = 404
    code = "memory_not_found"


class MemoryEntryNotFoundError(ApiError):
    """An entry id that the memory does not hold (its memory found, or the same 404 as an
    unknown memory where it is not)."""

    status_code = 404
    code = "memory_entry_not_found"


class MemoryEntryConflictError(ApiError):
    """An edit that would give an entry the source and languages another entry of the same
    memory has: the memory holds one translation per source."""

    status_code = 409
    code = "memory_entry_exists"


class InvalidMemoryFileError(ApiError):
    """A memory file that cannot be read: its message names the line or the unit."""

    code = "invalid_memory_file"


class DocumentNotReadyError(ApiError):
    status_code = 409
    code = "document_not_ready"


class TooManyDocumentsError(ApiError):
    """A client's documents in flight at once are limited; it may submit again once one ends."""

    status_code = 429
    type = "rate_limit_error"
    code = "too_many_documents"


class RateLimitedError(ApiError):
    """A key or account over its requests or characters per minute: retry after
    `Retry-After` seconds (the headers carry it)."""

    status_code = 429
    type = "requests"
    code = "rate_limit_exceeded"


class QuotaExceededError(ApiError):
    """A key or account over its characters per calendar month: no retry helps before the
    month ends (`x-should-retry: false`)."""

    status_code = 429
    type = "insufficient_quota"
    code = "insufficient_quota"


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


class StorageUnavailableError(UnavailableError):
    """The database cannot be reached, or was lost: nothing was read or written, so the client
    may try again (here or on another replica). `url` is the database's, password hidden; it
    is for logs and start-up errors, never for the client's answer."""

    code = "database_unavailable"
    RETRY_AFTER = 5

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(
            "The database is unavailable; try again shortly.",
            headers={"Retry-After": str(self.RETRY_AFTER)},
        )
        self.url = url
        self.reason = reason

    def __str__(self) -> str:
        return f"database {self.url} is unavailable: {self.reason}"


class MissingScopeError(ApiError):
    """The key is valid but its scopes do not include the route's (named in the message)."""

    status_code = 403
    type = "permission_error"
    code = "missing_scope"


class AccountNotFoundError(ApiError):
    status_code = 404
    code = "account_not_found"


class AccountExistsError(ApiError):
    status_code = 409
    code = "account_exists"


class KeyNotFoundError(ApiError):
    """No key has that id, prefix or value (a revoked one is still found: it is listed)."""

    status_code = 404
    code = "key_not_found"


class IdempotencyKeyReusedError(ApiError):
    """An `Idempotency-Key` sent again with another body (or to another route) than the
    request it was first sent with: the first answer is not this request's."""

    status_code = 422
    code = "idempotency_key_reused"
