"""The wire of /v1/files and /v1/batches: OpenAI's file and batch objects, as the `openai`
SDK reads them (`openai.types.FileObject`, `openai.types.Batch`). Their optional fields are
sent as null, as OpenAI sends them."""

from __future__ import annotations

from typing import Literal

import msgspec

from translate_server.wire import RequestStruct

BatchStatus = Literal[
    "validating",
    "failed",
    "in_progress",
    "finalizing",
    "completed",
    "expired",
    "cancelling",
    "cancelled",
]
FINAL: tuple[BatchStatus, ...] = ("failed", "completed", "expired", "cancelled")
# The endpoints a batch's lines may call, as OpenAI names them, and our own /translate.
ENDPOINTS = ("/v1/chat/completions", "/v1/completions", "/v1/responses", "/translate")
COMPLETION_WINDOW = "24h"


class FileObject(msgspec.Struct, kw_only=True):
    id: str
    object: Literal["file"] = "file"
    bytes: int
    created_at: int
    filename: str
    purpose: str  # "batch" (uploaded) or "batch_output" (written by a batch)
    status: Literal["uploaded", "processed", "error"] = "processed"
    expires_at: int | None = None
    status_details: str | None = None


class FileList(msgspec.Struct, kw_only=True):
    object: Literal["list"] = "list"
    data: list[FileObject]
    first_id: str | None = None
    last_id: str | None = None
    has_more: bool = False


class FileDeleted(msgspec.Struct, kw_only=True):
    id: str
    object: Literal["file"] = "file"
    deleted: bool = True


class BatchRequestCounts(msgspec.Struct, kw_only=True):
    total: int
    completed: int
    failed: int


class BatchError(msgspec.Struct, kw_only=True):
    code: str
    message: str
    param: str | None = None
    line: int | None = None


class BatchErrors(msgspec.Struct, kw_only=True):
    object: Literal["list"] = "list"
    data: list[BatchError]


class InputTokensDetails(msgspec.Struct, kw_only=True):
    cached_tokens: int = 0


class OutputTokensDetails(msgspec.Struct, kw_only=True):
    reasoning_tokens: int = 0


class BatchUsage(msgspec.Struct, kw_only=True):
    input_tokens: int = 0
    input_tokens_details: InputTokensDetails = msgspec.field(default_factory=InputTokensDetails)
    output_tokens: int = 0
    output_tokens_details: OutputTokensDetails = msgspec.field(default_factory=OutputTokensDetails)
    total_tokens: int = 0


class Batch(msgspec.Struct, kw_only=True):
    id: str
    object: Literal["batch"] = "batch"
    endpoint: str
    errors: BatchErrors | None = None
    input_file_id: str
    completion_window: str
    status: BatchStatus
    output_file_id: str | None = None
    error_file_id: str | None = None
    created_at: int
    in_progress_at: int | None = None
    expires_at: int | None = None
    finalizing_at: int | None = None
    completed_at: int | None = None
    failed_at: int | None = None
    expired_at: int | None = None
    cancelling_at: int | None = None
    cancelled_at: int | None = None
    request_counts: BatchRequestCounts
    metadata: dict[str, str] | None = None
    model: str | None = None
    usage: BatchUsage | None = None


class BatchList(msgspec.Struct, kw_only=True):
    object: Literal["list"] = "list"
    data: list[Batch]
    first_id: str | None = None
    last_id: str | None = None
    has_more: bool = False


class BatchCreateRequest(RequestStruct, kw_only=True):
    input_file_id: str
    endpoint: str
    completion_window: str = COMPLETION_WINDOW
    metadata: dict[str, str] | None = None
