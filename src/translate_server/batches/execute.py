"""One line of a batch run as its endpoint's request, through the same services the HTTP routes
call (no HTTP on the way), built for batches at the document jobs' low engine priority: the
line's body decoded as the route decodes it, its answer or its error (rendered by the one error
classifier, `http.errors`) written as the output line, with the tokens it used. An answer lost
for the server's sake (overloaded, engine unavailable) is tried again after a pause rather than
written as a failure."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from translate_server.batches.lines import BatchLine, LineResult, answered, error_body
from translate_server.errors import InvalidRequestError, OverloadedError, UnavailableError
from translate_server.http.errors import answer_for
from translate_server.observability.record import RequestRecord
from translate_server.openai_api.chat.protocol import ChatCompletionRequest
from translate_server.openai_api.completions.protocol import CompletionRequest
from translate_server.openai_api.responses.protocol import ResponsesRequest
from translate_server.translation.protocol import TranslateRequest

if TYPE_CHECKING:
    from translate_server.openai_api.chat.service import ChatService
    from translate_server.openai_api.completions.service import CompletionService
    from translate_server.openai_api.responses.service import ResponsesService
    from translate_server.translation.service.translation_service import TranslationService

# A line waits behind interactive traffic at low priority: it gets far longer than a request.
LINE_TIMEOUT = 600.0
_encode = msgspec.json.Encoder().encode
# Where msgspec's validation error says the wrong field is.
_AT = re.compile(r" - at `\$\.?(.*)`$")


@dataclass(frozen=True, slots=True)
class LineServices:
    """The batches' own services: each endpoint's, at the batches' priority and admission."""

    chat: ChatService
    completions: CompletionService
    responses: ResponsesService
    translation: TranslationService
    retries: int = 8
    retry_delay: float = 1.0  # doubles up to 30 s


@dataclass(frozen=True, slots=True)
class Ran:
    """A line's answer as kept, whether it goes to the error file, and its record (observed
    once the answer is kept: its tokens billed like any request's)."""

    result: LineResult
    failed: bool
    record: RequestRecord


async def run_line(services: LineServices, line: BatchLine, owner: str) -> Ran:
    """The line's request answered: its body, or its error's, with its status."""
    pause = services.retry_delay
    for attempt in range(services.retries + 1):
        record = RequestRecord(f"req_{os.urandom(16).hex()}", f"batch {line.url}", "POST")
        try:
            body, status = await _call(services, line, record, owner), 200
        except asyncio.CancelledError:
            raise
        except (OverloadedError, UnavailableError) as exc:
            if attempt < services.retries:
                await asyncio.sleep(pause)
                pause = min(pause * 2, 30.0)
                continue
            body, status = _failure(exc, record)
        except Exception as exc:  # noqa: BLE001 - its error is the line's answer; the batch goes on
            body, status = _failure(exc, record)
        break
    record.status = status
    line_out = answered(line.custom_id, record.request_id, status, body)
    result = LineResult(
        msgspec.Raw(line_out),
        record.prompt_tokens,
        record.completion_tokens,
        record.cached_tokens or 0,
    )
    return Ran(result, status != 200, record)


def _failure(exc: BaseException, record: RequestRecord) -> tuple[bytes, int]:
    answer = answer_for(exc)
    record.error_code = answer.error.code
    return error_body(answer.error), answer.status


Call = Callable[[LineServices, Any, RequestRecord, float, str], Awaitable[Any]]


async def _chat(s: LineServices, r: Any, record: RequestRecord, deadline: float, _: str) -> Any:
    return await s.chat.complete(r, record, deadline)


async def _completion(
    s: LineServices, r: Any, record: RequestRecord, deadline: float, _: str
) -> Any:
    return await s.completions.complete(r, record, deadline)


async def _response(s: LineServices, r: Any, record: RequestRecord, deadline: float, _: str) -> Any:
    return await s.responses.create(r, record, deadline)


async def _translate(
    s: LineServices, r: Any, record: RequestRecord, deadline: float, owner: str
) -> Any:
    return await s.translation.translate(r, record, deadline, keep_partial=True, owner=owner)


# Each endpoint's request type and the service call its route makes.
_ENDPOINTS: dict[str, tuple[type[Any], Call]] = {
    "/v1/chat/completions": (ChatCompletionRequest, _chat),
    "/v1/completions": (CompletionRequest, _completion),
    "/v1/responses": (ResponsesRequest, _response),
    "/translate": (TranslateRequest, _translate),
}


async def _call(
    services: LineServices, line: BatchLine, record: RequestRecord, owner: str
) -> bytes:
    kind, call = _ENDPOINTS[line.url]
    try:
        request = msgspec.json.decode(line.body, type=kind)
    except msgspec.ValidationError as exc:
        # As the route answers it: the field's JSON path as `param` ("messages[0].role").
        found = _AT.search(str(exc))
        param = found.group(1).replace("$.", "") if found else None
        raise InvalidRequestError(
            _AT.sub("", str(exc)), param=param, code="invalid_value"
        ) from None
    if getattr(request, "stream", False):
        raise InvalidRequestError("A batch's requests are not streamed.", param="stream")
    deadline = asyncio.get_running_loop().time() + LINE_TIMEOUT
    return _encode(await call(services, request, record, deadline, owner))
