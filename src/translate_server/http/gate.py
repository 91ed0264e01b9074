"""The checks every API request passes before it is routed or its body is read: its API key,
its caller's limits (requests per minute, at once) and a JSON body.

The key resolves to a `Caller` (`accounts.directory`), put in the scope's state under `CALLER`
for everything after the gate (scopes, limits, owners, usage, the log). The gate gives each
request its limits ticket (`limits.ticket`), admits its caller, adds the `x-ratelimit-*`
headers to its answer, and counts its usage when it ends.

A plain ASGI middleware rather than Litestar guards: a guard call copies the route handler,
and a synchronous guard runs in a worker thread, together several hundred microseconds per
request on the hot path.
"""

from __future__ import annotations

from collections.abc import Awaitable

from litestar.enums import ScopeType
from litestar.types import (
    ASGIApp,
    HTTPResponseBodyEvent,
    HTTPResponseStartEvent,
    HTTPScope,
    Message,
    Receive,
    Scope,
    Send,
)
from litestar.utils import normalize_path

from translate_server.accounts.caller import CALLER, Caller
from translate_server.accounts.directory import KeyDirectory
from translate_server.errors import (
    ApiError,
    AuthenticationError,
    InvalidRequestError,
    UnsupportedMediaTypeError,
)
from translate_server.http.errors import ErrorShape, answer_for, encode_error, note_error
from translate_server.limits.limiter import Limiter
from translate_server.limits.ticket import CURRENT, Ticket

# Where a request without an `Authorization` header may carry its key in the body or query
# (DeepL's legacy `auth_key`, LibreTranslate's `api_key`), the gate leaves the check to the
# route, putting the key directory in the scope's state under this name.
KEY_IN_BODY = "api_key_in_body"
PRESENTED_KEY = "api_key_presented"  # the key a route found in the body and accepted
TICKET = "limits_ticket"


async def accept_presented(scope: Scope, key: str, caller: Caller) -> None:
    """A key a route found in the body (or path) and accepted, and the caller it makes: put
    in the state as the gate puts the others, and admitted to its limits, or the refusal
    raised (answered in the route's shape)."""
    state = scope["state"]
    state[PRESENTED_KEY] = key
    state[CALLER] = caller  # who it is, for scopes, owners and limits
    _note_caller(scope, caller)
    ticket: Ticket | None = state.get(TICKET)
    if ticket is not None:
        await ticket.admit(caller)


class CallerFields:
    """The request record's part naming its caller: the log line, the span and the metrics
    carry the key's id and account, never the key itself."""

    __slots__ = ("account", "key_id")

    def __init__(self) -> None:
        self.key_id = ""
        self.account = ""

    def fields(self) -> dict[str, str]:
        return {"key_id": self.key_id, "account": self.account}


def _note_caller(scope: Scope, caller: Caller) -> None:
    record = scope["state"].get("record")
    if record is not None:
        part = record.part(CallerFields)
        part.key_id, part.account = caller.key_id, caller.account


class ApiGate:
    def __init__(
        self,
        app: ASGIApp,
        *,
        open_paths: frozenset[str],
        json_bodies: frozenset[str],
        keys: KeyDirectory,
        open_prefixes: tuple[str, ...] = (),
        error_shapes: tuple[tuple[str, ErrorShape], ...] = (),
        body_key_prefixes: tuple[str, ...] = (),
        limiter: Limiter | None = None,
    ) -> None:
        """Every path but `open_paths` and those under `open_prefixes` needs a key (where
        `keys` says keys are required; elsewhere the caller is the keyless one); POST bodies
        under the `json_bodies` paths must be JSON. Refusals under a prefix of `error_shapes`
        take that shape (compatible APIs' clients expect their own; the first prefix that
        matches, so the longest come first), others the OpenAI envelope. `limiter` holds
        each caller to its limits."""
        self.app = app
        self.open_paths = open_paths
        self.open_prefixes = open_prefixes
        self.json_bodies = json_bodies
        self.keys = keys
        self.error_shapes = error_shapes
        self.body_key_prefixes = body_key_prefixes
        self.limiter = limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        refusal, caller = self._refusal(scope)
        # An open path has no caller; where the route checks a key found in the body, it
        # admits the caller (`accept_presented`).
        deferred = caller is None and KEY_IN_BODY in scope.get("state", {})
        if refusal is None and self.limiter is not None and (caller is not None or deferred):
            await self._metered(scope, receive, send, caller)
        else:
            await self._answer(scope, receive, send, refusal)

    async def _metered(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        caller: Caller | None,
    ) -> None:
        """The request with its ticket: admitted where its caller is known, its
        answer carrying the ticket's headers, its usage counted when it ends."""
        assert self.limiter is not None
        refusal: ApiError | None = None
        ticket = self.limiter.ticket()
        state = scope.setdefault("state", {})
        state[TICKET] = ticket
        token = CURRENT.set(ticket)
        try:
            if caller is not None:
                _note_caller(scope, caller)
                try:
                    await ticket.admit(caller)
                except ApiError as exc:
                    refusal = exc

            def send_with_limits(message: Message) -> Awaitable[None]:
                if message["type"] == "http.response.start" and ticket.subjects:
                    message["headers"] = [*message.get("headers", ()), *ticket.headers()]
                return send(message)

            await self._answer(scope, receive, send_with_limits, refusal)
        finally:
            CURRENT.reset(token)
            record = state.get("record")
            route = record.route if record is not None else normalize_path(scope["path"])
            tokens = (record.prompt_tokens or 0) + (record.completion_tokens or 0) if record else 0
            ticket.end(route, tokens)

    async def _answer(
        self, scope: Scope, receive: Receive, send: Send, refusal: ApiError | None
    ) -> None:
        if refusal is None:
            await self.app(scope, receive, send)
            return
        note_error(scope, answer_for(refusal).error)
        status, headers, body = encode_error(refusal, self._shape(scope["path"]))
        # The body was never read: the connection cannot carry another request.
        headers.append((b"connection", b"close"))
        start: HTTPResponseStartEvent = {
            "type": "http.response.start",
            "status": status,
            "headers": headers,
        }
        await send(start)
        end: HTTPResponseBodyEvent = {
            "type": "http.response.body",
            "body": body,
            "more_body": False,
        }
        await send(end)

    def _shape(self, path: str) -> ErrorShape | None:
        for prefix, shape in self.error_shapes:
            if path.startswith(prefix):
                return shape
        return None

    def _refusal(self, scope: HTTPScope) -> tuple[ApiError | None, Caller | None]:
        """The refusal of the request, if any, and the caller it was let in as (the keyless
        one where no key is required; None on an open path or where the route checks a key
        in the body)."""
        # As the router will see it: a trailing or doubled slash reaches the same route.
        path = normalize_path(scope["path"])
        headers = dict(scope["headers"])
        caller: Caller | None = None
        if path not in self.open_paths and not path.startswith(self.open_prefixes):
            authorization = headers.get(b"authorization", b"")
            caller = self.keys.caller_for_header(authorization) if authorization else None
            if caller is None:
                if self.keys.required:
                    if not authorization and path.startswith(self.body_key_prefixes):
                        scope.setdefault("state", {})[KEY_IN_BODY] = self.keys
                        return None, None
                    return AuthenticationError(
                        "A valid API key is required: send `Authorization: Bearer <key>`.",
                        headers={"WWW-Authenticate": "Bearer"},
                    ), None
                caller = self.keys.keyless
            scope.setdefault("state", {})[CALLER] = caller
        return self._body_refusal(scope, path, headers), caller

    def _body_refusal(
        self, scope: HTTPScope, path: str, headers: dict[bytes, bytes]
    ) -> ApiError | None:
        if scope["method"] == "POST" and path in self.json_bodies:
            content_type = headers.get(b"content-type", b"").decode("latin-1")
            media_type = content_type.split(";", 1)[0].strip().lower()
            if media_type != "application/json" and not media_type.endswith("+json"):
                return UnsupportedMediaTypeError(
                    f"Send the body as JSON with `Content-Type: application/json`, not "
                    f"`{media_type or 'nothing'}`."
                )
            if headers.get(b"content-length") == b"0":
                return InvalidRequestError("The request body is empty; send a JSON object.")
        return None
