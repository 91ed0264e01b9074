"""Request bodies as msgspec Structs, sent as JSON or as forms: the compatible APIs' clients
send both, and the admin routes take what those clients' users are used to."""

from __future__ import annotations

import re
from typing import Any, TypeVar

import msgspec
from litestar import Request

from translate_server.errors import InvalidRequestError, UnsupportedMediaTypeError

T = TypeVar("T")

FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")
_PATH = re.compile(r" - at `\$\.?(.*)`$")


async def read_body(
    request: Request[Any, Any, Any], struct: type[T], lists: tuple[str, ...] = ()
) -> T:
    """The body as `struct`, from JSON or from a form; `lists` names form fields that are
    lists even when sent once (`text=a` is `["a"]`)."""
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    data: Any
    if media_type in FORMS:
        form = await request.form()
        data = {
            key: values if key in lists or len(values) > 1 else values[0]
            for key, values in form.dict().items()
        }
    elif media_type and media_type != "application/json" and not media_type.endswith("+json"):
        raise UnsupportedMediaTypeError(f"Send the body as a form or as JSON, not `{media_type}`.")
    elif raw := await request.body():
        try:
            data = msgspec.json.decode(raw)
        except msgspec.DecodeError:
            raise InvalidRequestError("The body is not valid JSON.") from None
    else:
        data = {}
    try:
        return msgspec.convert(data, struct, strict=False)
    except msgspec.ValidationError as exc:
        message = str(exc)
        match = _PATH.search(message)
        param = match.group(1) if match else None
        raise InvalidRequestError(_PATH.sub("", message), param=param or None) from None
