"""What every handler needs from the request: its record, its deadline, its client's presence."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

from litestar import Request
from litestar.datastructures import State
from litestar.openapi.datastructures import ResponseSpec

from translate_server.disconnect import CancelOnDisconnect
from translate_server.errors import ApiError
from translate_server.observability import RequestRecord
from translate_server.protocol.errors import ErrorResponse

T = TypeVar("T")


class ClientDisconnectedError(ApiError):
    status_code = 499
    type = "client_closed_request"
    code = "client_disconnected"


def record_of(request: Request) -> RequestRecord:
    return request.scope["state"]["record"]  # type: ignore[no-any-return]


def deadline_for(server_timeout: float, requested: float | None) -> float:
    """Event-loop time by which the request must finish; a client may only shorten it."""
    timeout = server_timeout if requested is None else min(requested, server_timeout)
    return asyncio.get_running_loop().time() + timeout


async def unless_disconnected(request: Request, work: Awaitable[T]) -> T:
    """Await `work`, cancelling it (and so aborting its engine requests) if the client leaves.

    Streams watch for themselves (`sse.EventStream`).
    """
    async with CancelOnDisconnect(request.receive):
        return await work
    raise ClientDisconnectedError("The client closed the connection.")


def app_state(request: Request) -> State:
    """The app's state itself. (A `state: State` handler parameter would be a deep copy made
    for every request: slow, and admission counts would never be shared.)"""
    return request.app.state


_ERROR_DESCRIPTIONS = {
    400: "Invalid request: `param` names the offending field",
    401: "Missing or invalid API key",
    403: "Missing or invalid API key (DeepL and LibreTranslate clients expect 403)",
    404: "Unknown model",
    413: "Request body too large",
    415: "Body is not JSON",
    429: "Overloaded: retry later (DeepL and LibreTranslate clients expect 429)",
    502: "The engine stopped while generating this request (not retried by a load balancer)",
    503: "Overloaded (with Retry-After), shutting down, or the engine is not running",
    504: "The request missed its deadline and was aborted",
}


def error_responses(*statuses: int, shape: type = ErrorResponse) -> dict[int, ResponseSpec]:
    """OpenAPI entries for the error answers a route can give: the OpenAI envelope, or the
    `shape` a compatible API's clients expect."""
    return {
        status: ResponseSpec(data_container=shape, generate_examples=False,
                             description=_ERROR_DESCRIPTIONS[status])
        for status in statuses
    }


API_ERRORS = (400, 401, 404, 413, 415, 502, 503, 504)


def answer_or_stream(answer: type, description: str) -> dict[int, ResponseSpec]:
    """The 200 of a route that answers JSON, or an event stream when asked to: documented as
    the JSON answer (a handler annotated `Answer | Stream` would be documented as "anything")."""
    return {200: ResponseSpec(data_container=answer, generate_examples=False,
                              description=description)}

# What the DeepL- and LibreTranslate-compatible routes answer instead: 403 for a bad key and
# 429 when overloaded, as their clients expect.
COMPAT_ERRORS = (400, 403, 404, 413, 429, 502, 503, 504)
