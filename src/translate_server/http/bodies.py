"""Request bodies as msgspec Structs, sent as JSON or as forms: the compatible APIs' clients
send both, and the admin routes take what those clients' users are used to."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, TypeVar

import msgspec
from litestar import Request

from translate_server.errors import InvalidRequestError, UnsupportedMediaTypeError

T = TypeVar("T")

FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")
# Room for a multipart body's boundaries and form fields beside its file, on the routes that
# take files up to a size of their own (documents, memories, glossaries).
FORM_OVERHEAD = 64 * 1024
_PATH = re.compile(r" - at `\$\.?(.*)`$")
_MISSING = re.compile(r"^Object missing required field `([^`]+)`")


async def read_body(
    request: Request[Any, Any, Any], struct: type[T], lists: tuple[str, ...] = ()
) -> T:
    """The body as `struct`, from JSON or from a form; `lists` names form fields that are
    lists even when sent once (`text=a` is `["a"]`)."""
    return _convert(await _body_data(request, lists), struct)


async def read_params(
    request: Request[Any, Any, Any], struct: type[T], lists: tuple[str, ...] = ()
) -> T:
    """`struct` from the query string and the body together, as APIs that take their
    parameters in either read them (Google's): a field in the body wins over the query's."""
    query = _fields(request.query_params.dict().items(), lists)
    body = await _body_data(request, lists)
    if not isinstance(body, dict):
        raise InvalidRequestError("The body is not a JSON object.")
    return _convert({**query, **body}, struct)


async def _body_data(request: Request[Any, Any, Any], lists: tuple[str, ...]) -> Any:
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type in FORMS:
        return _fields((await request.form()).dict().items(), lists)
    if media_type and media_type != "application/json" and not media_type.endswith("+json"):
        raise UnsupportedMediaTypeError(f"Send the body as a form or as JSON, not `{media_type}`.")
    if raw := await request.body():
        try:
            return msgspec.json.decode(raw)
        except msgspec.DecodeError:
            raise InvalidRequestError("The body is not valid JSON.") from None
    return {}


def _fields(items: Iterable[tuple[str, list[Any]]], lists: tuple[str, ...]) -> dict[str, Any]:
    return {key: values if key in lists or len(values) > 1 else values[0] for key, values in items}


def _convert(data: Any, struct: type[T]) -> T:
    try:
        return msgspec.convert(data, struct, strict=False)
    except msgspec.ValidationError as exc:
        message = str(exc)
        match = _PATH.search(message)
        param = match.group(1) if match else None
        if missing := _MISSING.search(message):  # the field itself, not the object holding it
            param = f"{param}.{missing.group(1)}" if param else missing.group(1)
        raise InvalidRequestError(_PATH.sub("", message), param=param or None) from None
