"""Document jobs and translation memories: a job names a memory (`memory` on
/translate/document), whose exact matches never reach the engine."""

from __future__ import annotations

from tests.integration.documents.test_document_api import finished, submit
from tests.integration.memory.test_memory_translate_api import filled
from tests.support.fakes import FakeEngine
from tests.support.harness import running


async def test_a_document_job_uses_the_memory_it_names(make_app, engine: FakeEngine) -> None:
    document = b"Save the file.\n\nSomething else entirely.\n"
    async with running(make_app()) as client:
        memory_id = await filled(client)
        response = await submit(client, document, "notes.txt", source_lang="en", memory=memory_id)
        assert response.status_code == 202, response.text
        status = await finished(client, response.json())
        result = await client.get(response.json()["result_url"])
        unknown = await submit(client, document, "notes.txt", memory="mem_unknown")
        lonely = await submit(client, document, "notes.txt", memory_threshold="80")
        bad = await submit(client, document, "notes.txt", memory=memory_id, memory_threshold="x")
    assert status["status"] == "done"
    assert result.text == "Speichern Sie die Datei.\n\nSOMETHING ELSE ENTIRELY.\n"
    assert len(engine.requests) == 1
    assert unknown.status_code == 404 and unknown.json()["error"]["param"] == "memory"
    assert lonely.status_code == 400 and lonely.json()["error"]["param"] == "memory_threshold"
    assert bad.status_code == 400 and bad.json()["error"]["param"] == "memory_threshold"
