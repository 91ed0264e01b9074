"""The scope check: the route's declared scope (`route_paths.SCOPE`) must be among the
caller's. A plain ASGI middleware on the app, run once the request is routed, so that a
refusal is raised inside the route and answered in its surface's error shape (DeepL's,
LibreTranslate's, Google's envelopes), as every other error there is."""

from __future__ import annotations

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Receive, Scope, Send

from translate_server.accounts.caller import CALLER, Caller
from translate_server.errors import MissingScopeError
from translate_server.http.route_paths import SCOPE

_READS = frozenset(("GET", "HEAD", "OPTIONS"))


def needed_scope(declared: object, method: str) -> str | None:
    """The scope a request with `method` needs on a route that declares `declared`."""
    if isinstance(declared, tuple):
        read, write = declared
        return str(read if method in _READS else write)
    return declared if isinstance(declared, str) else None


def require_scope(scope: Scope) -> None:
    """Raises MissingScopeError, naming the scope, where the caller the gate (or a route that
    reads its key from the body) let in lacks the route's. Nothing to check before a caller
    is known: an open route, or one whose key is in the body (its check calls this)."""
    caller: Caller | None = scope.get("state", {}).get(CALLER)
    handler = scope.get("route_handler")
    if caller is None or handler is None:
        return
    needed = needed_scope(handler.opt.get(SCOPE), str(scope.get("method", "GET")))
    if needed is not None and needed not in caller.scopes:
        raise MissingScopeError(
            f"This API key lacks the `{needed}` scope this route needs.", param=needed
        )


class ScopeCheck:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == ScopeType.HTTP:
            require_scope(scope)
        await self.app(scope, receive, send)
