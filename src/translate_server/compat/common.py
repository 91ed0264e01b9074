"""What the DeepL-, LibreTranslate- and Google-compatible routes share: keys and fields sent
in forms (their clients send forms as often as JSON), and the service's errors answered in
another API's shape.

Errors are still raised as everywhere else and answered by `http.errors`; a compatible surface
only names its shape, in the exception-handler table set on its Router.
"""

from __future__ import annotations

from typing import Any

from litestar import Request

from translate_server.errors import AuthenticationError
from translate_server.http.bodies import FORMS
from translate_server.http.gate import KEY_IN_BODY, accept_presented
from translate_server.http.requests import header_key
from translate_server.http.scopes import require_scope
from translate_server.wire import ErrorBody


async def query_or_form(request: Request[Any, Any, Any], name: str) -> str | None:
    """A parameter of a GET that clients send in the query or, like `requests`' `data=`, as
    a form body."""
    value = request.query_params.get(name)
    if value is None and await request.body():
        media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if media_type in FORMS:
            value = (await request.form()).get(name)
    return value


def compat_status(status: int, error: ErrorBody) -> int:
    """DeepL and LibreTranslate clients know 403 for a bad key and 429 for "slow down"."""
    if status == 401:
        return 403
    if status == 503 and error.code == "overloaded":
        return 429
    return status


async def presented_key(request: Request[Any, Any, Any], field: str) -> str:
    """The API key the client sent: `Authorization: <scheme> <key>`, else the `field` of its
    query, form or JSON body (DeepL's legacy `auth_key`, LibreTranslate's `api_key`); "" when
    none. Usage and glossaries are kept per key."""
    if token := header_key(request):
        return token
    value = await query_or_form(request, field)
    if value is None and request.method == "POST" and await request.body():
        media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if media_type not in FORMS:
            try:
                data = await request.json()
            except Exception:  # noqa: BLE001 - a bad body is the route's to refuse
                data = None
            if isinstance(data, dict):
                value = data.get(field)
    return value if isinstance(value, str) else ""


def body_key_check(field: str, path_param: str | None = None) -> Any:
    """A Router `before_request` hook: where the gate left the key check to the route (no
    `Authorization` header), the key in `field` must be one of the server's; or, on a route
    with `path_param` in its path (DeepLX's `/{token}/translate`), the key there."""

    async def check(request: Request[Any, Any, Any]) -> None:
        keys = request.scope.get("state", {}).get(KEY_IN_BODY)
        if keys is None:
            return
        in_path = request.path_params.get(path_param) if path_param else None
        key = in_path if isinstance(in_path, str) else await presented_key(request, field)
        caller = keys.caller(key.encode("utf-8")) if key else None
        if caller is None:
            raise AuthenticationError(
                f"A valid API key is required: send it in `{field}` or the Authorization header."
            )
        # Who it is, for scopes, owners and limits; admitted to its limits.
        await accept_presented(request.scope, key, caller)
        require_scope(request.scope)

    return check
