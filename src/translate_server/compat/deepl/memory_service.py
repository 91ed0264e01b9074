"""DeepL's translation memories (`/v3/translation_memories...`) over the server's own (/memories):
a memory imported here is one of the owner's memories, and one made on /memories is listed
here. An import is a job awaiting its file at a URL of its own; the file is read and merged
when it arrives, and the job records how that went (a file that cannot be read fails the job,
with its line or unit named, as DeepL's jobs do). An export is done at once: its file is
written when downloaded."""

from __future__ import annotations

import time

from translate_server.compat.deepl.memory_protocol import (
    ExportCreated,
    ImportRequest,
    JobParameters,
    SegmentsPage,
    SourceSegment,
    TranslationMemories,
    TranslationMemory,
    cursor,
)
from translate_server.compat.deepl.protocol import NotFoundError
from translate_server.errors import ApiError, InvalidRequestError
from translate_server.memory.jobs import MemoryJob
from translate_server.memory.segments import languages, segments
from translate_server.memory.service import Memories
from translate_server.memory.store import MemoryInfo


class DeepLMemories:
    def __init__(self, memories: Memories) -> None:
        self.memories = memories

    # -- imports ---------------------------------------------------------------------------
    async def create_import(self, owner: str, body: ImportRequest) -> MemoryJob:
        """An import job awaiting the file `body` announces (refused at once if too large)."""
        memories = self.memories
        memories.check_size(body.source_file.content_length)
        parameters = body.parameters
        return await memories.jobs.create(
            owner,
            "import",
            status="awaiting_input",
            display_name=parameters.display_name if parameters else None,
            file_name=body.source_file.file_name,
            content_type=body.source_file.content_type or "application/xml",
            content_length=body.source_file.content_length,
        )

    async def awaiting_upload(self, token: str) -> MemoryJob:
        """The import job whose upload URL carries `token`, if it still awaits its file."""
        job = await self.memories.jobs.by_token(token)
        if job is None or job.operation != "import":
            raise NotFoundError("No upload is expected at this URL.")
        if job.status == "expired":
            raise InvalidRequestError("The upload URL has expired: create a new import job.")
        if job.status != "awaiting_input":
            raise InvalidRequestError("This import job has its file already.")
        return job

    async def receive_upload(self, job: MemoryJob, data: bytes) -> None:
        """The job's file, of the length it declared, merged into a new memory before this
        returns; a second upload racing it is refused."""
        if len(data) != job.content_length:
            raise InvalidRequestError(
                f"The file has {len(data)} bytes; the import job declared {job.content_length}.",
                param="content_length",
            )
        if not await self.memories.jobs.claim(job):
            raise InvalidRequestError("This import job has its file already.")
        await self._import(job, data)

    async def _import(self, job: MemoryJob, data: bytes) -> None:
        memories = self.memories
        name = job.display_name or job.file_name or "translation memory"
        made = await memories.create(job.owner, name)
        try:
            _, merged = await memories.import_file(
                job.owner, made.id, data, job.file_name, None, None
            )
        except ApiError as failure:
            await memories.delete(job.owner, made.id)
            await memories.jobs.finish(job, "failed", error=failure.message)
            return
        except BaseException:
            await memories.delete(job.owner, made.id)
            await memories.jobs.finish(job, "failed", error="The file could not be imported.")
            raise
        # DeepL counts the segments an import skipped; here those are the file's duplicates,
        # merged into one entry (the later translation kept).
        await memories.jobs.finish(job, "completed", memory=made.id, skipped=merged.replaced)

    async def job(self, owner: str, job_id: str) -> MemoryJob:
        found = await self.memories.jobs.get(owner, job_id)
        if found is None:
            raise NotFoundError("Translation memory job not found.", param="job_id")
        return found

    # -- memories --------------------------------------------------------------------------
    async def page(self, owner: str, page: int, size: int) -> TranslationMemories:
        """The `page`th page of `size` of the owner's memories, and how many it has."""
        listed = await self.memories.list(owner)
        shown = listed[page * size : (page + 1) * size]
        return TranslationMemories(
            translation_memories=[await self._described(owner, info) for info in shown],
            total_count=len(listed),
        )

    async def describe(self, owner: str, memory_id: str) -> TranslationMemory:
        return await self._described(owner, await self._info(owner, memory_id))

    async def delete(self, owner: str, memory_id: str) -> None:
        await self._info(owner, memory_id)
        await self.memories.store.delete(owner, memory_id)

    async def segments(
        self,
        owner: str,
        memory_id: str,
        *,
        after: int,
        size: int,
        contains: str | None,
        case_sensitive: bool,
    ) -> SegmentsPage:
        """Up to `size` segments after the row `after`; with `contains`, those that hold it."""
        found = await segments(
            self.memories.store,
            owner,
            memory_id,
            after=after,
            size=size,
            contains=contains,
            case_sensitive=case_sensitive,
        )
        if found is None:
            raise memory_not_found()
        info, page = found
        return SegmentsPage(
            segments=[SourceSegment.of(segment) for segment in page.segments],
            segment_count=info.entries,
            next_page_cursor=None if page.after is None else cursor(page.after),
        )

    # -- exports ---------------------------------------------------------------------------
    async def create_export(self, owner: str, memory_id: str) -> ExportCreated:
        """An export job, done at once (its file is written when downloaded)."""
        await self._info(owner, memory_id)
        job = await self.memories.jobs.create(owner, "export", status="completed", memory=memory_id)
        return ExportCreated(
            job_id=job.job_id, parameters=JobParameters(translation_memory_id=memory_id)
        )

    async def download(self, token: str) -> tuple[MemoryInfo, bytes]:
        """The TMX file of the export job whose download URL carries `token`."""
        memories = self.memories
        job = await memories.jobs.by_token(token)
        if job is None or job.operation != "export" or job.memory is None:
            raise NotFoundError("No download at this URL.")
        if time.time() > job.expires:
            raise NotFoundError("The download URL has expired: create a new export job.")
        info, data = await memories.export(job.owner, job.memory)
        await memories.jobs.finish(job, "downloaded")
        return info, data

    async def _info(self, owner: str, memory_id: str) -> MemoryInfo:
        info = await self.memories.store.get(owner, memory_id)
        if info is None:
            raise memory_not_found()
        return info

    async def _described(self, owner: str, info: MemoryInfo) -> TranslationMemory:
        found = await languages(self.memories.store, owner, info.id)
        if found is None:  # deleted meanwhile
            raise memory_not_found()
        return TranslationMemory.of(info, found)


def memory_not_found() -> NotFoundError:
    return NotFoundError("Translation memory not found.", param="translation_memory_id")
