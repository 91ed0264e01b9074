"""What can go wrong with a file or a batch, as `errors.ApiError`s (`http.errors` renders them)."""

from __future__ import annotations

from translate_server.errors import ApiError


class FileNotFoundApiError(ApiError):
    """No file with this id for this API key (another key's answers the same)."""

    status_code = 404
    code = "file_not_found"


class BatchNotFoundError(ApiError):
    """No batch with this id for this API key (another key's answers the same)."""

    status_code = 404
    code = "batch_not_found"


class TooManyFilesError(ApiError):
    status_code = 429
    type = "rate_limit_error"
    code = "too_many_files"


class TooManyBatchesError(ApiError):
    status_code = 429
    type = "rate_limit_error"
    code = "too_many_batches"
