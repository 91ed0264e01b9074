"""The service's errors in Google's envelope: `{"error": {"code", "message", "errors",
"status", "details"}}`, as Google's client libraries read it (`google.api_core.exceptions`:
the class from the HTTP status, `errors`, and `reason` from the `ErrorInfo` detail).

Errors are raised as everywhere else and answered by `http.errors`; this is only their shape.
"""

from __future__ import annotations

from translate_server.compat.google.protocol import (
    Edition,
    GoogleError,
    GoogleErrorBody,
    GoogleErrorInfo,
    GoogleErrorItem,
)
from translate_server.errors import ApiError, QuotaExceededError, RateLimitedError
from translate_server.wire import ErrorBody as ServiceError

# Google's canonical status names (google.rpc.Code) by HTTP status.
_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    501: "UNIMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
# v2's legacy `errors[].reason` by HTTP status.
_REASON = {
    401: "authError",
    403: "forbidden",
    404: "notFound",
    413: "requestTooLarge",
    429: "rateLimitExceeded",
}
# The limits' refusals (their statuses are `http.errors.limit_status`'s).
_LIMIT_REASONS = {
    RateLimitedError.code: "rateLimitExceeded",
    QuotaExceededError.code: "dailyLimitExceeded",
}
DOMAIN = "translate-server"  # of the `ErrorInfo` reasons, which are this server's codes
MISSING = "required_parameter"  # the code of a missing parameter: v2's reason `required`


# Google answers a key it does not know with 400 (`API_KEY_INVALID`), and none with 403.
class ApiKeyInvalidError(ApiError):
    type = "authentication_error"
    code = "api_key_invalid"


class ApiKeyMissingError(ApiError):
    status_code = 403
    type = "permission_error"
    code = "api_key_missing"


def google_error(status: int, error: ServiceError, edition: Edition) -> tuple[int, GoogleError]:
    code = (error.code or error.type).upper()
    return status, GoogleError(
        error=GoogleErrorBody(
            code=status,
            message=error.message,
            errors=[_item(status, error)] if edition == "v2" else None,
            status=_STATUS.get(status, "INVALID_ARGUMENT" if status < 500 else "INTERNAL"),
            details=[GoogleErrorInfo(reason=code, domain=DOMAIN)],
        )
    )


def _item(status: int, error: ServiceError) -> GoogleErrorItem:
    if status == 400:
        reason = "required" if error.code == MISSING else "invalid" if error.param else "badRequest"
    elif error.code in _LIMIT_REASONS:
        reason = _LIMIT_REASONS[error.code]
    else:
        reason = _REASON.get(status, "backendError" if status >= 500 else "badRequest")
    location, location_type = error.param, "parameter" if error.param else None
    if status == 401:  # the gate's refusal of an `Authorization` header
        location, location_type = "Authorization", "header"
    return GoogleErrorItem(
        message=error.message,
        domain="global",
        reason=reason,
        location=location,
        locationType=location_type,
    )
