"""Translation memories over HTTP: made, filled from files of every format, exported, kept
across restarts, private to the API key that made them, and bounded."""

from __future__ import annotations

import polib
import pytest

from translate_server.memory.entries import Entry
from translate_server.memory.formats import write_tmx

from tests.support.harness import AppClient, running

# The stores' contract: every test here runs on SQLite and on PostgreSQL.
pytestmark = pytest.mark.usefixtures("backend")

ENTRIES = [
    Entry("Save the file.", "Speichern Sie die Datei.", "en", "de", "toolbar"),
    Entry("Delete %(count)d files?", "%(count)d Dateien löschen?", "en", "de"),
]

PO = """msgid ""
msgstr ""
"Language: de\\n"
"Content-Type: text/plain; charset=UTF-8\\n"

msgctxt "toolbar"
msgid "Save the file."
msgstr "Speichern Sie die Datei."

msgid "Delete %(count)d files?"
msgstr "%(count)d Dateien löschen?"

#, fuzzy
msgid "Not sure."
msgstr "Nicht sicher."
"""
XLIFF_12 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
 <file source-language="en" target-language="de" datatype="plaintext" original="app">
  <body>
   <trans-unit id="1"><source>Save the file.</source><target>Speichern Sie die Datei.</target>
    <note>toolbar</note></trans-unit>
   <trans-unit id="2"><source>Delete %(count)d files?</source>
    <target>%(count)d Dateien löschen?</target></trans-unit>
   <trans-unit id="3"><source>Untranslated.</source></trans-unit>
  </body>
 </file>
</xliff>
"""
XLIFF_20 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="2.0" xmlns="urn:oasis:names:tc:xliff:document:2.0" srcLang="en" trgLang="de">
 <file id="f1">
  <unit id="u1"><segment><source>Save the file.</source>
   <target>Speichern Sie die Datei.</target></segment></unit>
  <unit id="u2"><segment><source>Delete %(count)d files?</source>
   <target>%(count)d Dateien löschen?</target></segment></unit>
 </file>
</xliff>
"""
CSV = (
    "en,de\nSave the file.,Speichern Sie die Datei.,toolbar\n"
    '"Delete %(count)d files?","%(count)d Dateien löschen?"\n'
)
TSV = (
    "source\ttarget\nSave the file.\tSpeichern Sie die Datei.\n"
    "Delete %(count)d files?\t%(count)d Dateien löschen?\n"
)


def _mo() -> bytes:
    catalog = polib.pofile(PO)
    return catalog.to_binary()


FILES = {
    "memory.tmx": (write_tmx(ENTRIES), {}),
    "app.po": (PO.encode(), {"source_lang": "en"}),
    "app.pot": (PO.encode(), {"source_lang": "en"}),
    "app.mo": (_mo(), {"source_lang": "en"}),
    "app.xlf": (XLIFF_12.encode(), {}),
    "app.xliff": (XLIFF_20.encode(), {}),
    "memory.csv": (CSV.encode(), {}),
    "memory.tsv": (TSV.encode(), {"source_lang": "en", "target_lang": "de"}),
}


async def make_memory(client: AppClient, name: str = "product", **headers: str) -> str:
    response = await client.post("/memories", json={"name": name}, headers=headers)
    assert response.status_code == 201, response.text
    return response.json()["id"]


async def upload(
    client: AppClient,
    memory_id: str,
    filename: str,
    data: bytes,
    fields: dict[str, str] | None = None,
    **headers: str,
):  # type: ignore[no-untyped-def]
    return await client.post(
        f"/memories/{memory_id}/import",
        files={"file": (filename, data)},
        data=fields or {},
        headers=headers,
    )


@pytest.mark.parametrize("filename", list(FILES))
async def test_every_format_imports_and_comes_back_as_tmx(make_app, filename: str) -> None:
    data, fields = FILES[filename]
    async with running(make_app()) as client:
        memory_id = await make_memory(client)
        response = await upload(client, memory_id, filename, data, fields)
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["added"] == 2 and body["memory"]["entries"] == 2
        exported = await client.get(f"/memories/{memory_id}/export")
    assert exported.status_code == 200
    assert exported.headers["content-type"].startswith("application/x-tmx+xml")
    from translate_server.memory.formats import read_entries

    back = read_entries(exported.content, "back.tmx", None, None)
    assert {(e.source, e.target, e.source_lang, e.target_lang) for e in back} == {
        (e.source, e.target, e.source_lang, e.target_lang) for e in ENTRIES
    }


async def test_a_duplicate_keeps_the_latest_translation(make_app) -> None:
    later = "en,de\nSave  the file.,Datei speichern.\n"
    async with running(make_app()) as client:
        memory_id = await make_memory(client)
        await upload(client, memory_id, "a.csv", CSV.encode())
        response = await upload(client, memory_id, "b.csv", later.encode())
        assert response.json()["replaced"] == 1 and response.json()["added"] == 0
        exported = await client.get(f"/memories/{memory_id}/export")
    assert b"Datei speichern." in exported.content
    assert b"Speichern Sie die Datei." not in exported.content


async def test_list_get_rename_and_delete(make_app) -> None:
    async with running(make_app()) as client:
        first, second = await make_memory(client, "a"), await make_memory(client, "b")
        listed = (await client.get("/memories")).json()
        assert [m["id"] for m in listed["data"]] == [first, second]
        assert (await client.get(f"/memories/{first}")).json()["name"] == "a"
        renamed = await client.patch(f"/memories/{second}", json={"name": "product"})
        assert (renamed.status_code, renamed.json()["name"]) == (200, "product")
        assert (await client.get(f"/memories/{second}")).json()["name"] == "product"
        blank = await client.patch(f"/memories/{second}", json={"name": ""})
        assert blank.status_code == 400 and blank.json()["error"]["param"] == "name"
        unknown = await client.patch("/memories/mem_unknown", json={"name": "x"})
        assert unknown.json()["error"]["code"] == "memory_not_found"
        assert (await client.delete(f"/memories/{first}")).json()["deleted"] is True
        gone = await client.get(f"/memories/{first}")
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "memory_not_found"


async def test_another_keys_memory_is_a_404(make_app) -> None:
    alice, bob = {"authorization": "Bearer alice"}, {"authorization": "Bearer bob"}
    async with running(make_app(api_key=["alice", "bob"])) as client:
        memory_id = await make_memory(client, **alice)
        assert (await client.get(f"/memories/{memory_id}", headers=alice)).status_code == 200
        for response in (
            await client.get(f"/memories/{memory_id}", headers=bob),
            await client.get(f"/memories/{memory_id}/export", headers=bob),
            await upload(client, memory_id, "a.csv", CSV.encode(), **bob),
            await client.delete(f"/memories/{memory_id}", headers=bob),
            await client.patch(f"/memories/{memory_id}", json={"name": "x"}, headers=bob),
            await client.post(
                "/translate",
                headers=bob,
                json={
                    "text": "Save the file.",
                    "source_lang": "en",
                    "target_lang": "de",
                    "memory": memory_id,
                },
            ),
        ):
            assert response.status_code == 404, response.text
            assert response.json()["error"]["code"] == "memory_not_found"
        assert (await client.get("/memories", headers=bob)).json()["data"] == []


async def test_a_memory_survives_a_restart(make_app) -> None:
    async with running(make_app()) as client:
        memory_id = await make_memory(client)
        await upload(client, memory_id, "a.csv", CSV.encode())
    async with running(make_app()) as client:
        found = await client.get(f"/memories/{memory_id}")
        translated = await client.post(
            "/translate",
            json={
                "text": "Save the file.",
                "source_lang": "en",
                "target_lang": "de",
                "memory": memory_id,
            },
        )
    assert found.json()["entries"] == 2
    assert translated.json()["translation"] == "Speichern Sie die Datei."


async def test_a_file_over_the_limit_is_a_413_naming_it(make_app) -> None:
    async with running(make_app(max_memory_bytes=64)) as client:
        memory_id = await make_memory(client)
        response = await upload(client, memory_id, "a.csv", CSV.encode() * 2)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "memory_file_too_large"
    assert "at most 64" in response.json()["error"]["message"]


async def test_a_memory_over_its_entries_is_a_413_and_keeps_nothing(make_app) -> None:
    async with running(make_app(max_memory_entries=1)) as client:
        memory_id = await make_memory(client)
        response = await upload(client, memory_id, "a.csv", CSV.encode())
        entries = (await client.get(f"/memories/{memory_id}")).json()["entries"]
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "memory_too_large"
    assert "at most 1 " in response.json()["error"]["message"] and entries == 0


@pytest.mark.parametrize(
    ("filename", "data", "named"),
    [
        ("bad.csv", b"en,de\nfine,gut\nonly one column\n", "Line 3"),
        ("bad.po", b'msgid "a"\nmsgstr "b"\n\nnonsense here\n', "line 4"),
        ("bad.tmx", b"<tmx version='1.4'><body><tu><tuv xml:lang='en'>", "line 1"),
        ("bad.xlf", b"<xliff version='1.2'><file><body>\n<trans-unit>", "line 2"),
        ("bad.docx", b"PK", "`.docx`"),
    ],
)
async def test_a_file_that_cannot_be_read_is_a_400_naming_where(
    make_app, filename: str, data: bytes, named: str
) -> None:
    async with running(make_app()) as client:
        memory_id = await make_memory(client)
        response = await upload(
            client, memory_id, filename, data, {"source_lang": "en", "target_lang": "de"}
        )
    assert response.status_code == 400, response.text
    assert named in response.json()["error"]["message"]


async def test_a_file_without_its_languages_asks_for_them(make_app) -> None:
    async with running(make_app()) as client:
        memory_id = await make_memory(client)
        response = await upload(client, memory_id, "a.tsv", TSV.encode())
    assert response.status_code == 400
    assert response.json()["error"]["param"] == "source_lang"
