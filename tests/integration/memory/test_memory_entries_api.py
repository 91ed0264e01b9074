"""A memory's entries one at a time over HTTP: added, listed, searched and paged, read,
edited and removed; each change raises the memory's revision, so /translate never serves a
translation made with the memory as it was. Private to the key that made the memory."""

from __future__ import annotations

import pytest

from tests.integration.memory.test_memory_api import make_memory
from tests.integration.memory.test_memory_translate_api import FUZZY, filled, translate
from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, running

# The stores' contract: every test here runs on SQLite and on PostgreSQL.
pytestmark = pytest.mark.usefixtures("backend")


def entry(source: str, target: str, **fields: str) -> dict[str, str]:
    return {"source": source, "target": target, "source_lang": "en", "target_lang": "de", **fields}


async def add(client: AppClient, memory_id: str, body: dict[str, str], **headers: str):  # type: ignore[no-untyped-def]
    return await client.post(f"/memories/{memory_id}/entries", json=body, headers=headers)


async def revision(client: AppClient, memory_id: str) -> int:
    response = await client.get(f"/memories/{memory_id}")
    return int(response.json()["revision"])


async def test_add_replace_get_edit_and_remove(make_app) -> None:
    async with running(make_app()) as client:
        memory_id = await make_memory(client)
        made = await add(client, memory_id, entry("Save the file.", "Datei speichern.", note="ui"))
        assert made.status_code == 201, made.text
        first = made.json()
        assert first["memory"] == memory_id and first["note"] == "ui"
        assert first["memory_revision"] == 1

        # The same source again (other spacing, other region): its translation replaced.
        spaced = entry("Save  the file. ", "Speichern Sie die Datei.", target_lang="de-AT")
        again = await add(client, memory_id, spaced)
        assert again.status_code == 200, again.text
        assert again.json()["id"] == first["id"] and again.json()["target_lang"] == "de-AT"
        assert again.json()["memory_revision"] == 2
        assert (await client.get(f"/memories/{memory_id}")).json()["entries"] == 1

        url = f"/memories/{memory_id}/entries/{first['id']}"
        assert (await client.get(url)).json()["target"] == "Speichern Sie die Datei."
        edited = await client.patch(url, json={"target": "Die Datei speichern.", "note": None})
        assert edited.status_code == 200, edited.text
        assert edited.json()["target"] == "Die Datei speichern." and "note" not in edited.json()
        assert edited.json()["source"] == "Save  the file. "
        assert await revision(client, memory_id) == 3

        removed = await client.delete(url)
        assert removed.json() == {
            "id": first["id"],
            "deleted": True,
            "memory_revision": 4,
        }
        gone = await client.get(url)
        assert gone.status_code == 404 and gone.json()["error"]["code"] == "memory_entry_not_found"
        assert (await client.delete(url)).status_code == 404
        info = (await client.get(f"/memories/{memory_id}")).json()
        assert info["entries"] == 0 and info["revision"] == 4


async def test_search_by_source_or_target_paged(make_app) -> None:
    async with running(make_app()) as client:
        memory_id = await make_memory(client)
        for n in range(7):
            await add(client, memory_id, entry(f"Open file {n}.", f"Datei {n} öffnen."))
        await add(client, memory_id, entry("Close 100% of it.", "Schließe alles."))
        await add(client, memory_id, entry("Open file 0.", "Ouvrir 0.", target_lang="fr"))
        base = f"/memories/{memory_id}/entries"

        page = (await client.get(base, params={"q": "OPEN", "limit": 3})).json()
        assert page["total"] == 8 and page["has_more"] is True
        assert (page["offset"], page["limit"]) == (0, 3)
        assert [e["source"] for e in page["data"]] == [f"Open file {n}." for n in range(3)]
        last = (await client.get(base, params={"q": "open", "limit": 3, "offset": 6})).json()
        assert len(last["data"]) == 2 and last["has_more"] is False

        targets = (await client.get(base, params={"q": "öffnen", "field": "target"})).json()
        assert targets["total"] == 7
        assert (await client.get(base, params={"q": "öffnen", "field": "source"})).json()[
            "total"
        ] == 0
        french = (await client.get(base, params={"target_lang": "fr"})).json()
        assert [e["target"] for e in french["data"]] == ["Ouvrir 0."]
        # LIKE's wildcards are looked for as themselves.
        percent = (await client.get(base, params={"q": "0%"})).json()
        assert [e["source"] for e in percent["data"]] == ["Close 100% of it."]
        assert (await client.get(base, params={"q": "_"})).json()["total"] == 0

        bad = await client.get(base, params={"limit": 0})
        assert bad.status_code == 400 and "limit" in bad.text
        unknown = await client.get(base, params={"source_lang": "xx-nope"})
        assert unknown.status_code == 400 and unknown.json()["error"]["param"] == "source_lang"


async def test_an_edited_source_is_found_by_its_new_words_only(
    make_app, engine: FakeEngine
) -> None:
    async with running(make_app()) as client:
        memory_id = await make_memory(client)
        made = (await add(client, memory_id, entry("Print the page.", "Seite drucken."))).json()
        await client.patch(
            f"/memories/{memory_id}/entries/{made['id']}", json={"source": "Print the report."}
        )
        exact = await translate(client, "Print the report.", memory_id)
        assert exact["translation"] == "Seite drucken." and not engine.requests
        old = await translate(client, "Print the page.", memory_id)
        assert old["translation"] != "Seite drucken."
        listed = (await client.get(f"/memories/{memory_id}/entries", params={"q": "page"})).json()
        assert listed["total"] == 0


async def test_an_edit_never_leaves_a_stale_cached_translation(
    make_app, engine: FakeEngine
) -> None:
    async with running(make_app()) as client:
        memory_id = await filled(client)
        await translate(client, FUZZY, memory_id)
        await translate(client, FUZZY, memory_id)
        assert len(engine.requests) == 1  # the second from the cache
        found = await client.get(
            f"/memories/{memory_id}/entries", params={"q": "Close the settings"}
        )
        closing = found.json()["data"][0]
        await client.patch(
            f"/memories/{memory_id}/entries/{closing['id']}",
            json={"target": "Machen Sie das Einstellungsfenster zu."},
        )
        await translate(client, FUZZY, memory_id)
        assert len(engine.requests) == 2
        assert "Machen Sie das Einstellungsfenster zu." in engine.decode(engine.requests[1][1])
        await client.delete(f"/memories/{memory_id}/entries/{closing['id']}")
        await translate(client, FUZZY, memory_id)
        assert len(engine.requests) == 3
        assert "Einstellungsfenster zu" not in engine.decode(engine.requests[2][1])


async def test_bad_entries_are_refused_by_name(make_app) -> None:
    async with running(make_app(max_memory_entries=2)) as client:
        memory_id = await make_memory(client)
        for body, param in (
            (entry("   ", "Leer."), "source"),
            (entry("Empty.", ""), "target"),
            (entry("Hi.", "Hallo.", target_lang="qq-zz-nonsense"), "target_lang"),
            ({"source": "Hi.", "target": "Hallo.", "source_lang": "en"}, "target_lang"),
        ):
            refused = await add(client, memory_id, body)
            assert refused.status_code == 400, refused.text
            assert refused.json()["error"]["param"] == param, refused.text
        one = (await add(client, memory_id, entry("One.", "Eins."))).json()
        await add(client, memory_id, entry("Two.", "Zwei."))
        full = await add(client, memory_id, entry("Three.", "Drei."))
        assert full.status_code == 413 and full.json()["error"]["code"] == "memory_too_large"
        assert "--max-memory-entries" in full.json()["error"]["message"]
        # A replacement does not grow the memory: still accepted.
        assert (await add(client, memory_id, entry("One.", "Ein."))).status_code == 200
        clash = await client.patch(
            f"/memories/{memory_id}/entries/{one['id']}", json={"source": "Two."}
        )
        assert clash.status_code == 409 and clash.json()["error"]["code"] == "memory_entry_exists"
        assert (await client.get(f"/memories/{memory_id}")).json()["entries"] == 2
        missing = await client.get(f"/memories/{memory_id}/entries/999999")
        assert missing.json()["error"]["code"] == "memory_entry_not_found"
        unknown = await client.get("/memories/mem_nope/entries")
        assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "memory_not_found"


async def test_another_keys_memory_entries_are_a_404(make_app) -> None:
    alice, bob = {"authorization": "Bearer alice"}, {"authorization": "Bearer bob"}
    async with running(make_app(api_key=["alice", "bob"])) as client:
        memory_id = await make_memory(client, **alice)
        made = (await add(client, memory_id, entry("Hi.", "Hallo."), **alice)).json()
        url = f"/memories/{memory_id}/entries/{made['id']}"
        for response in (
            await add(client, memory_id, entry("Bye.", "Tschüss."), **bob),
            await client.get(f"/memories/{memory_id}/entries", headers=bob),
            await client.get(url, headers=bob),
            await client.patch(url, json={"target": "Servus."}, headers=bob),
            await client.delete(url, headers=bob),
        ):
            assert response.status_code == 404, response.text
            assert response.json()["error"]["code"] == "memory_not_found"
        kept = (await client.get(url, headers=alice)).json()
        assert kept["target"] == "Hallo." and kept["memory_revision"] == 1
