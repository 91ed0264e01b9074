"""A batch's lines: the uploaded JSONL checked line by line (each `{custom_id, method: POST,
url, body}`, its `custom_id` unique), and each line's answer as OpenAI's output files hold it
(`{id, custom_id, response: {status_code, request_id, body}, error}`), kept meanwhile with the
tokens it used (`LineResult`)."""

from __future__ import annotations

import uuid
from typing import Any

import msgspec

from translate_server.batches.protocol import ENDPOINTS
from translate_server.errors import InvalidRequestError
from translate_server.wire import ErrorBody, ErrorResponse


class BatchLine(msgspec.Struct, kw_only=True):
    custom_id: str
    method: str
    url: str
    body: msgspec.Raw  # decoded as the endpoint's request when the line runs


class LineResponse(msgspec.Struct, kw_only=True):
    status_code: int
    request_id: str
    body: msgspec.Raw


class LineError(msgspec.Struct, kw_only=True):
    code: str
    message: str


class OutputLine(msgspec.Struct, kw_only=True):
    id: str
    custom_id: str
    response: LineResponse | None
    error: LineError | None


class LineResult(msgspec.Struct, array_like=True):
    """A line's answer as kept while its batch runs: the output line and the tokens it used."""

    line: msgspec.Raw
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0


_line = msgspec.json.Decoder(BatchLine)
_object = msgspec.json.Decoder(dict[str, Any])
_encode = msgspec.json.Encoder().encode
RESULT = msgspec.json.Decoder(LineResult)


def parsed(data: bytes, max_lines: int) -> list[BatchLine]:
    """The file's lines, each checked; a 400 naming the first wrong line (from 1)."""
    lines: list[BatchLine] = []
    seen: set[str] = set()
    for number, raw in enumerate(data.splitlines(), start=1):
        if not raw.strip():
            continue
        line = _checked(raw, number)
        if line.custom_id in seen:
            raise _wrong(number, f"`custom_id` {line.custom_id!r} is used by an earlier line")
        seen.add(line.custom_id)
        lines.append(line)
        if len(lines) > max_lines:
            raise InvalidRequestError(
                f"A batch file has at most {max_lines} requests.", param="file"
            )
    if not lines:
        raise InvalidRequestError("The file has no requests.", param="file")
    return lines


def _checked(raw: bytes, number: int) -> BatchLine:
    try:
        line = _line.decode(raw)
        body = _object.decode(line.body)
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:
        raise _wrong(
            number, f"not a request object {{custom_id, method, url, body}} ({exc})"
        ) from None
    if not line.custom_id:
        raise _wrong(number, "`custom_id` is empty")
    if line.method.upper() != "POST":
        raise _wrong(number, "`method` must be POST")
    if line.url not in ENDPOINTS:
        raise _wrong(number, f"`url` must be one of {', '.join(ENDPOINTS)}")
    if not isinstance(body, dict):  # pragma: no cover - the decoder asks for an object
        raise _wrong(number, "`body` must be an object")
    return line


def _wrong(number: int, why: str) -> InvalidRequestError:
    return InvalidRequestError(f"Line {number} of the file: {why}.", param="file")


def answered(custom_id: str, request_id: str, status: int, body: bytes) -> bytes:
    """The output line of a request that was answered (a 200, or an error's status)."""
    response = LineResponse(status_code=status, request_id=request_id, body=msgspec.Raw(body))
    return _encode(OutputLine(id=_id(), custom_id=custom_id, response=response, error=None))


def not_run(custom_id: str, code: str, message: str) -> bytes:
    """The error line of a request its batch ended before running (cancelled, expired)."""
    error = LineError(code=code, message=message)
    return _encode(OutputLine(id=_id(), custom_id=custom_id, response=None, error=error))


def error_body(error: ErrorBody) -> bytes:
    return _encode(ErrorResponse(error=error))


def _id() -> str:
    return f"batch_req_{uuid.uuid4().hex}"
