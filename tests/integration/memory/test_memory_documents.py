"""Document jobs and translation memories: a job names a memory (`memory` on
/translate/document), whose exact matches never reach the engine; a catalog's own translated
entries are the memory of its untranslated ones."""

from __future__ import annotations

import sqlite3

from tests.integration.documents.test_document_api import finished, submit
from tests.integration.memory.test_memory_translate_api import CHAT_PROMPT, filled, prompts
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


CATALOG = """msgid ""
msgstr ""
"Language: de\\n"
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "Save the file."
msgstr "Speichern Sie die Datei."

msgid "Open the settings window."
msgstr "Öffnen Sie das Einstellungsfenster."

msgid "Close the settings window."
msgstr "Schließen Sie das Einstellungsfenster."

msgctxt "menu"
msgid "Save the file."
msgstr ""

msgid "Open the settings windows."
msgstr ""
"""


async def _translate_catalog(client, **fields: str) -> str:
    response = await submit(client, CATALOG.encode(), "app.po", source_lang="en", **fields)
    assert response.status_code == 202, response.text
    assert (await finished(client, response.json()))["status"] == "done"
    return (await client.get(response.json()["result_url"])).text


async def test_a_catalogs_own_translations_are_the_memory_of_its_untranslated_entries(
    make_app, engine: FakeEngine, tmp_path
) -> None:
    async with running(make_app()) as client:
        result = await _translate_catalog(client)
    # The entry the file has under another context is answered from the file itself; the
    # close one is translated with the file's closest entries as the examples.
    assert prompts(engine) == [CHAT_PROMPT]
    assert 'msgctxt "menu"\nmsgid "Save the file."\nmsgstr "Speichern Sie die Datei."' in result
    # The job's memory is gone with the job.
    with sqlite3.connect(tmp_path / "memories.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM memories").fetchone() == (0,)


async def test_a_catalogs_own_memory_can_be_turned_off(make_app, engine: FakeEngine) -> None:
    async with running(make_app()) as client:
        result = await _translate_catalog(client, file_memory="false")
    assert len(engine.requests) == 2
    assert "Schließen" not in prompts(engine)[1]
    assert 'msgstr "SAVE THE FILE."' in result
