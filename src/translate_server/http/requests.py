"""What every handler needs from its request: its record, its deadline, its client's presence,
the API key it was let in with."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

from litestar import Request

from translate_server.accounts.caller import CALLER, Caller
from translate_server.errors import ApiError
from translate_server.http.disconnect import CancelOnDisconnect
from translate_server.http.gate import PRESENTED_KEY
from translate_server.observability.record import RequestRecord

T = TypeVar("T")

# The app state's `limits.Limiter`: the process's limits and usage.
LIMITER = "limiter"


class ClientDisconnectedError(ApiError):
    status_code = 499
    type = "client_closed_request"
    code = "client_disconnected"


def record_of(request: Request[Any, Any, Any]) -> RequestRecord:
    record: RequestRecord = request.scope["state"]["record"]
    return record


def header_key(request: Request[Any, Any, Any]) -> str:
    """The key of `Authorization: <scheme> <key>` (Bearer, DeepL-Auth-Key...); "" when none."""
    _, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip()


def accepted_key(request: Request[Any, Any, Any]) -> str:
    """The API key the request was let in with: its `Authorization` header's, or the one a
    route found in its body and accepted; "" when none."""
    return header_key(request) or request.scope.get("state", {}).get(PRESENTED_KEY, "")


def caller_of(request: Request[Any, Any, Any]) -> Caller:
    """Who the request comes from, as the gate (or the route's key check) found it."""
    caller: Caller = request.scope["state"][CALLER]
    return caller


def request_owner(request: Request[Any, Any, Any]) -> str:
    """Whose stored things the caller sees: its account's (`owners`)."""
    return caller_of(request).account


def deadline_for(server_timeout: float, requested: float | None) -> float:
    """Event-loop time by which the request must finish; a client may only shorten it."""
    timeout = server_timeout if requested is None else min(requested, server_timeout)
    return asyncio.get_running_loop().time() + timeout


async def unless_disconnected(request: Request[Any, Any, Any], work: Awaitable[T]) -> T:
    """Await `work`, cancelling it (and so aborting its engine requests) if the client leaves.

    Streams watch for themselves (`sse.EventStream`).
    """
    async with CancelOnDisconnect(request.receive):
        return await work
    raise ClientDisconnectedError("The client closed the connection.")
