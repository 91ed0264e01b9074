"""Checks on a request's envelope, made before its body is read or parsed."""

from __future__ import annotations

from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler

from translate_server.errors import ApiError, InvalidRequestError


class UnsupportedMediaTypeError(ApiError):
    status_code = 415
    code = "unsupported_media_type"


def require_json_body(connection: ASGIConnection, _: BaseRouteHandler) -> None:
    """POST bodies must be declared JSON and must not be empty."""
    if connection.scope["method"] != "POST":
        return
    media_type = connection.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type != "application/json" and not media_type.endswith("+json"):
        raise UnsupportedMediaTypeError(
            f"Send the body as JSON with `Content-Type: application/json`, not "
            f"`{media_type or 'nothing'}`."
        )
    if connection.headers.get("content-length") == "0":
        raise InvalidRequestError("The request body is empty; send a JSON object.")
