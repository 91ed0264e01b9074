"""What the DeepL- and LibreTranslate-compatible routes share: bodies sent as JSON or as forms
(their clients send both), and the service's errors answered in another API's shape.

Errors are still raised as everywhere else and answered by `http.errors`; a compatible surface
only names its shape, in the exception-handler table set on its Router.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

import msgspec
from litestar import Request

from translate_server.errors import InvalidRequestError
from translate_server.wire import ErrorBody

T = TypeVar("T")

_FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")
_PATH = re.compile(r" - at `\$\.?(.*)`$")


async def read_body(request: Request, struct: type[T], lists: tuple[str, ...] = ()) -> T:
    """The body as `struct`, from JSON or from a form; `lists` names form fields that are
    lists even when sent once (`text=a` is `["a"]`)."""
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    data: Any
    if media_type in _FORMS:
        form = await request.form()
        data = {key: values if key in lists or len(values) > 1 else values[0]
                for key, values in form.dict().items()}
    elif await request.body():
        data = await request.json()
    else:
        data = {}
    try:
        return msgspec.convert(data, struct, strict=False)
    except msgspec.ValidationError as exc:
        message = str(exc)
        match = _PATH.search(message)
        param = match.group(1) if match else None
        raise InvalidRequestError(_PATH.sub("", message), param=param or None) from None


async def query_or_form(request: Request, name: str) -> str | None:
    """A parameter of a GET that clients send in the query or, like `requests`' `data=`, as
    a form body."""
    value = request.query_params.get(name)
    if value is None and await request.body():
        media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if media_type in _FORMS:
            value = (await request.form()).get(name)
    return value


def compat_status(status: int, error: ErrorBody) -> int:
    """DeepL and LibreTranslate clients know 403 for a bad key and 429 for "slow down"."""
    if status == 401:
        return 403
    if status == 503 and error.code == "overloaded":
        return 429
    return status
