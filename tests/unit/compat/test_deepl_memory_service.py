"""DeepL's translation-memory jobs driven directly, over the server's memories in a real SQLite
file: an import job awaits its file, merges it when it arrives (or fails, leaving no memory),
an export is downloaded once. The upload and download URLs are the integration tests'."""

from __future__ import annotations

import pytest

from translate_server.compat.deepl.memory_protocol import (
    ImportParameters,
    ImportRequest,
    SourceFile,
)
from translate_server.compat.deepl.memory_service import DeepLMemories
from translate_server.compat.deepl.protocol import NotFoundError
from translate_server.errors import InvalidRequestError, PayloadTooLargeError
from translate_server.memory.entries import Entry
from translate_server.memory.formats import read_entries, write_tmx
from translate_server.memory.service import Memories

TMX = write_tmx(
    [
        Entry("Save the file.", "Speichern Sie die Datei.", "en", "de"),
        Entry("Open the settings.", "Öffnen Sie die Einstellungen.", "en", "de"),
        Entry("Save the file.", "Die Datei speichern.", "en", "de"),  # merged into the first
    ]
)


def _announcing(data: bytes, name: str = "Support") -> ImportRequest:
    return ImportRequest(
        source_file=SourceFile(file_name="support.tmx", content_length=len(data)),
        parameters=ImportParameters(display_name=name),
    )


async def test_an_import_merges_its_file_into_a_new_memory_of_its_owner(
    memories: Memories,
) -> None:
    deepl = DeepLMemories(memories)
    job = await deepl.create_import("alice", _announcing(TMX))
    waiting = await deepl.awaiting_upload(job.token)
    await deepl.receive_upload(waiting, TMX)
    done = await deepl.job("alice", job.job_id)
    assert (done.status, done.skipped) == ("completed", 1)
    assert done.memory is not None
    listed = await deepl.page("alice", 0, 25)
    assert listed.total_count == 1
    (memory,) = listed.translation_memories
    assert (memory.name, memory.source_language, memory.target_languages) == (
        "Support",
        "en",
        ["de"],
    )
    assert memory.segment_count == 2
    assert (await deepl.page("bob", 0, 25)).total_count == 0
    with pytest.raises(NotFoundError):  # another owner's job is unknown to them
        await deepl.job("bob", job.job_id)
    # The job has its file: the URL takes no second one.
    with pytest.raises(InvalidRequestError) as again:
        await deepl.awaiting_upload(job.token)
    assert again.value.message == "This import job has its file already."


async def test_a_file_that_cannot_be_read_fails_its_job_and_leaves_no_memory(
    memories: Memories,
) -> None:
    deepl = DeepLMemories(memories)
    broken = b"<tmx><body><tu>"
    job = await deepl.create_import("alice", _announcing(broken))
    await deepl.receive_upload(await deepl.awaiting_upload(job.token), broken)
    failed = await deepl.job("alice", job.job_id)
    assert failed.status == "failed" and failed.error
    assert (await deepl.page("alice", 0, 25)).total_count == 0


async def test_an_upload_must_be_as_long_as_announced_and_within_the_limit(
    memories: Memories,
) -> None:
    deepl = DeepLMemories(memories)
    job = await deepl.create_import("alice", _announcing(TMX))
    with pytest.raises(InvalidRequestError) as short:
        await deepl.receive_upload(await deepl.awaiting_upload(job.token), TMX[:-1])
    assert short.value.param == "content_length"
    # Refused before anything was claimed: the right file is still taken.
    await deepl.receive_upload(await deepl.awaiting_upload(job.token), TMX)
    with pytest.raises(PayloadTooLargeError):
        await deepl.create_import("alice", _announcing(b"x" * (memories.max_bytes + 1)))
    with pytest.raises(NotFoundError):
        await deepl.awaiting_upload("no-such-token")


async def test_an_export_is_downloaded_as_tmx_and_a_memory_deleted(memories: Memories) -> None:
    deepl = DeepLMemories(memories)
    job = await deepl.create_import("alice", _announcing(TMX))
    await deepl.receive_upload(await deepl.awaiting_upload(job.token), TMX)
    memory_id = (await deepl.job("alice", job.job_id)).memory
    assert memory_id is not None
    with pytest.raises(NotFoundError):  # not bob's to export
        await deepl.create_export("bob", memory_id)
    created = await deepl.create_export("alice", memory_id)
    export = await deepl.job("alice", created.job_id)
    info, data = await deepl.download(export.token)
    assert info.id == memory_id
    assert {entry.source for entry in read_entries(data, "export.tmx", None, None)} == {
        "Save the file.",
        "Open the settings.",
    }
    page = await deepl.segments(
        "alice", memory_id, after=0, size=1, contains=None, case_sensitive=False
    )
    assert (len(page.segments), page.segment_count) == (1, 2)
    assert page.next_page_cursor is not None
    await deepl.delete("alice", memory_id)
    with pytest.raises(NotFoundError):
        await deepl.describe("alice", memory_id)
