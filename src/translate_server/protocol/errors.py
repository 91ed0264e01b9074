"""The OpenAI error envelope, used by every 4xx and 5xx answer of both surfaces."""

from __future__ import annotations

import msgspec


class ErrorBody(msgspec.Struct, kw_only=True):
    message: str
    type: str
    param: str | None = None
    code: str | None = None


class ErrorResponse(msgspec.Struct, kw_only=True):
    error: ErrorBody
