"""Files and batches as the routes use them, in plain values: an upload checked line by line
and kept, a batch checked against its file and queued (the document runner is woken to claim
it), cancelled, read and listed, each for its owner (the caller's account, as documents)."""

from __future__ import annotations

from dataclasses import dataclass

from translate_server.batches.files import FileStore
from translate_server.batches.lines import parsed
from translate_server.batches.protocol import (
    COMPLETION_WINDOW,
    ENDPOINTS,
    Batch,
    BatchCreateRequest,
    BatchError,
    FileObject,
)
from translate_server.batches.store import BatchStore
from translate_server.documents.runner import DocumentJobs
from translate_server.errors import InvalidRequestError

# OpenAI's bounds on a batch's metadata.
METADATA_PAIRS, METADATA_KEY, METADATA_VALUE = 16, 64, 512
# Validation's errors listed on a batch failed at validation (the first of them).
LISTED_ERRORS = 100


@dataclass(frozen=True, slots=True)
class BatchLimits:
    max_file_bytes: int
    max_requests: int
    files_per_owner: int | None
    batches_per_owner: int | None


@dataclass(frozen=True, slots=True)
class Batches:
    files: FileStore
    batches: BatchStore
    jobs: DocumentJobs
    limits: BatchLimits

    async def upload(self, owner: str, filename: str, data: bytes, purpose: str) -> FileObject:
        """A batch input file kept, once every line is a request a batch can run."""
        if purpose != "batch":
            raise InvalidRequestError(
                "Only `purpose=batch` files are served (JSONL of batch requests).",
                param="purpose",
            )
        lines = parsed(data, self.limits.max_requests)
        return await self.files.create(
            owner, filename, data, len(lines), self.limits.files_per_owner
        )

    async def create(self, owner: str, request: BatchCreateRequest) -> Batch:
        """The batch queued; failed at once (as OpenAI's validation fails it) where a line
        calls another endpoint than the batch's."""
        if request.endpoint not in ENDPOINTS:
            raise InvalidRequestError(
                f"`endpoint` is one of {', '.join(ENDPOINTS)}.", param="endpoint"
            )
        if request.completion_window != COMPLETION_WINDOW:
            raise InvalidRequestError(
                f"`completion_window` is {COMPLETION_WINDOW!r}.", param="completion_window"
            )
        _check_metadata(request.metadata)
        data = await self.files.content(owner, request.input_file_id)
        lines = parsed(data, self.limits.max_requests)
        errors = [
            BatchError(
                code="mismatched_endpoint",
                message=f"The request's url {line.url} is not the batch's endpoint "
                f"{request.endpoint}.",
                param="url",
                line=number,
            )
            for number, line in enumerate(lines, start=1)
            if line.url != request.endpoint
        ][:LISTED_ERRORS]
        batch = await self.batches.create(
            owner=owner,
            endpoint=request.endpoint,
            input_file_id=request.input_file_id,
            total=len(lines),
            metadata=request.metadata,
            limit=self.limits.batches_per_owner,
            errors=errors,
        )
        self.jobs.wake()
        return batch

    async def cancel(self, owner: str, batch_id: str) -> Batch:
        batch = await self.batches.cancel(owner, batch_id)
        self.jobs.wake()  # a queued batch ends as soon as a server claims it
        return batch


def _check_metadata(metadata: dict[str, str] | None) -> None:
    if metadata is None:
        return
    if len(metadata) > METADATA_PAIRS or any(
        len(key) > METADATA_KEY or len(value) > METADATA_VALUE for key, value in metadata.items()
    ):
        raise InvalidRequestError(
            f"`metadata` holds at most {METADATA_PAIRS} pairs, keys of at most {METADATA_KEY} "
            f"characters and values of at most {METADATA_VALUE}.",
            param="metadata",
        )
