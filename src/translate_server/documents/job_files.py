"""A job's files on disk: one folder per job under the store's directory, holding `source`
(the upload) and `result` (the translated file, once done).

Plain blocking calls: the store runs them on its worker thread, beside its SQLite calls."""

from __future__ import annotations

import shutil
from pathlib import Path


class JobFiles:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def folder(self, job_id: str) -> Path:
        return self.directory / job_id

    def write_source(self, job_id: str, data: bytes) -> None:
        folder = self.folder(job_id)
        folder.mkdir(parents=True)
        (folder / "source").write_bytes(data)

    def read_source(self, job_id: str) -> bytes:
        return (self.folder(job_id) / "source").read_bytes()

    def write_result(self, job_id: str, result: bytes) -> Path:
        """The result's path, once it is wholly written."""
        path = self.folder(job_id) / "result"
        partial = path.with_suffix(".partial")
        partial.write_bytes(result)
        partial.replace(path)  # a crash never leaves half a result behind
        return path

    def remove(self, job_id: str) -> None:
        shutil.rmtree(self.folder(job_id), ignore_errors=True)
