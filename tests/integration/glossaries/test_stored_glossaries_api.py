"""Stored glossaries over HTTP: made, edited entry by entry, named by `glossary_id` on
/translate and /translate/document, never served stale after an edit, private to the key
that made them, shared with DeepL's routes, imported and exported as TBX at ten thousand
entries."""

from __future__ import annotations

import re

import pytest
from translate.storage import tbx

from translate_server.glossaries.tbx import write_tbx

from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, read_until, running

# The stores' contract: every test here runs on SQLite and on PostgreSQL.
pytestmark = pytest.mark.usefixtures("backend")

ALICE, BOB = {"authorization": "Bearer alice"}, {"authorization": "Bearer bob"}
SRT = b"1\n00:00:01,000 --> 00:00:02,500\nThe cat sleeps.\n"


async def make_glossary(
    client: AppClient, entries: dict[str, str] | None = None, **headers: str
) -> dict:
    body = {"name": "pets", "source_lang": "en", "target_lang": "de", "entries": entries or {}}
    response = await client.post("/glossaries", json=body, headers=headers)
    assert response.status_code == 201, response.text
    return dict(response.json())


async def translate(client: AppClient, glossary_id: str, text: str, **headers: str) -> dict:
    body = {"text": text, "source_lang": "en", "target_lang": "de", "glossary_id": glossary_id}
    response = await client.post("/translate", json=body, headers=headers)
    assert response.status_code == 200, response.text
    return dict(response.json())


def last_prompt(engine: FakeEngine) -> str:
    return engine.decode(engine.requests[-1][1])


async def test_a_stored_glossary_steers_translate_and_an_edit_is_never_served_stale(
    client: AppClient, engine: FakeEngine
) -> None:
    glossary = await make_glossary(client, {"cat": "Katze", "dog": "Hund"})
    assert glossary["revision"] == 2  # made, then its first dictionary written
    body = await translate(client, glossary["id"], "The cat sleeps.")
    assert "- cat => Katze" in last_prompt(engine) and "Hund" not in last_prompt(engine)
    assert body["glossary_applied"] == []  # the double upper-cases: Katze is not in its answer
    await translate(client, glossary["id"], "The cat sleeps.")
    assert len(engine.requests) == 1  # the same request: from the cache

    listed = (await client.get(f"/glossaries/{glossary['id']}/entries", params={"q": "CAT"})).json()
    (cat,) = listed["data"]
    changed = await client.patch(
        f"/glossaries/{glossary['id']}/entries/{cat['id']}", json={"target": "Mieze"}
    )
    assert changed.status_code == 200, changed.text
    assert changed.json() == {**cat, "target": "Mieze"}  # its id kept: its source is the same
    await translate(client, glossary["id"], "The cat sleeps.")
    assert len(engine.requests) == 2 and "- cat => Mieze" in last_prompt(engine)

    removed = await client.delete(f"/glossaries/{glossary['id']}/entries/{cat['id']}")
    assert removed.json() == {
        "id": cat["id"],
        "deleted": True,
        "revision": listed["revision"] + 2,
    }
    await translate(client, glossary["id"], "The cat sleeps.")
    assert len(engine.requests) == 3 and "=>" not in last_prompt(engine)


async def test_entries_are_added_paged_searched_edited_and_refused(client: AppClient) -> None:
    glossary = await make_glossary(client)
    path = f"/glossaries/{glossary['id']}/entries"
    for i in range(30):
        added = await client.post(path, json={"source": f"term {i:02}", "target": f"Begriff {i}"})
        assert added.status_code == 201, added.text
    page = (await client.get(path, params={"offset": 10, "limit": 5})).json()
    assert [e["source"] for e in page["data"]] == [f"term {i}" for i in range(10, 15)]
    assert (page["total"], page["offset"], page["limit"]) == (30, 10, 5)
    found = (await client.get(path, params={"q": "begriff 2"})).json()
    assert [e["source"] for e in found["data"]] == [
        "term 02",
        *(f"term {i}" for i in range(20, 30)),
    ]
    entry = found["data"][0]
    assert (await client.get(f"{path}/{entry['id']}")).json() == entry
    renamed = (await client.patch(f"{path}/{entry['id']}", json={"source": "term two"})).json()
    assert renamed["source"] == "term two" and renamed["id"] != entry["id"]
    # Kept in its place among the others.
    assert (await client.get(path, params={"limit": 3})).json()["data"][2]["source"] == "term two"

    refusals = [
        (await client.post(path, json={"source": "term 05", "target": "x"}), 400),
        (await client.post(path, json={"source": "a\nb", "target": "x"}), 400),
        (await client.post(path, json={"source": "x" * 1001, "target": "x"}), 400),
        (await client.patch(f"{path}/{entry['id']}", json={"target": "x"}), 404),  # renamed
        (await client.get(f"{path}/not-an-id"), 404),
        (await client.get(path, params={"limit": 501}), 400),
        (await client.post(path, json={"source": "x", "target": "y", "source_lang": "en"}), 400),
    ]
    assert [(r.status_code, want) for r, want in refusals] == [(w, w) for _, w in refusals]
    assert refusals[0][0].json()["error"]["code"] == "glossary_entry_exists"
    # Renamed, its entries kept.
    renamed = await client.patch(f"/glossaries/{glossary['id']}", json={"name": "terms"})
    assert (renamed.status_code, renamed.json()["name"]) == (200, "terms")
    assert (await client.get(path)).json()["total"] == 30
    assert (await client.patch(f"/glossaries/{glossary['id']}", json={})).status_code == 400


async def test_another_keys_glossary_is_a_404_everywhere(make_app) -> None:
    async with running(make_app(api_key=["alice", "bob"])) as client:
        glossary = await make_glossary(client, {"cat": "Katze"}, **ALICE)
        entries = f"/glossaries/{glossary['id']}/entries"
        (cat,) = (await client.get(entries, headers=ALICE)).json()["data"]
        text = {"text": "The cat.", "source_lang": "en", "target_lang": "de"}
        for response in (
            await client.get(f"/glossaries/{glossary['id']}", headers=BOB),
            await client.get(entries, headers=BOB),
            await client.post(entries, json={"source": "a", "target": "b"}, headers=BOB),
            await client.patch(f"{entries}/{cat['id']}", json={"target": "x"}, headers=BOB),
            await client.delete(f"{entries}/{cat['id']}", headers=BOB),
            await client.get(f"/glossaries/{glossary['id']}/tbx", headers=BOB),
            await client.delete(f"/glossaries/{glossary['id']}", headers=BOB),
            await client.patch(f"/glossaries/{glossary['id']}", json={"name": "x"}, headers=BOB),
            await client.post(
                "/translate", json={**text, "glossary_id": glossary["id"]}, headers=BOB
            ),
            await client.post(
                "/translate/document",
                files={"file": ("a.srt", SRT)},
                data={"target_lang": "de", "glossary_id": glossary["id"]},
                headers=BOB,
            ),
        ):
            assert response.status_code == 404, response.text
            assert response.json()["error"]["code"] == "glossary_not_found"
        assert (await client.get("/glossaries", headers=BOB)).json()["data"] == []
        assert len((await client.get("/glossaries", headers=ALICE)).json()["data"]) == 1


async def test_a_deepl_glossary_is_used_on_translate_and_edited_here(
    make_app, engine: FakeEngine
) -> None:
    deepl = {"authorization": "DeepL-Auth-Key alice"}
    async with running(make_app(api_key=["alice"])) as client:
        made = await client.post(
            "/v2/glossaries",
            json={
                "name": "pets",
                "source_lang": "EN",
                "target_lang": "DE",
                "entries": "cat\tKatze",
            },
            headers=deepl,
        )
        assert made.status_code == 201, made.text
        glossary_id = made.json()["glossary_id"]
        await translate(client, glossary_id, "The cat sleeps.", **ALICE)
        assert "- cat => Katze" in last_prompt(engine)
        added = await client.post(
            f"/glossaries/{glossary_id}/entries",
            json={"source": "dog", "target": "Hund"},
            headers=ALICE,
        )
        assert added.status_code == 201, added.text
        tsv = await client.get(f"/v2/glossaries/{glossary_id}/entries", headers=deepl)
        assert tsv.text == "cat\tKatze\ndog\tHund"
        described = (await client.get(f"/v2/glossaries/{glossary_id}", headers=deepl)).json()
        assert described["entry_count"] == 2


async def test_a_pair_the_glossary_lacks_is_a_400_and_a_detected_text_uses_its_own(
    client: AppClient, engine: FakeEngine
) -> None:
    glossary = await make_glossary(client, {"cat": "Katze"})
    response = await client.post(
        "/translate",
        json={
            "text": "Le chat.",
            "source_lang": "fr",
            "target_lang": "de",
            "glossary_id": glossary["id"],
        },
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "glossary_pair_missing"
    english = "The cat sleeps on the warm windowsill every single afternoon."
    response = await client.post(
        "/translate",
        json={
            "text": [english, "Le chat dort."],
            "target_lang": "de",
            "glossary_id": glossary["id"],
        },
    )
    assert response.status_code == 200, response.text
    prompts = [engine.decode(ids) for _, ids, _ in engine.requests]
    assert [("cat => Katze" in p) for p in prompts] == [True, False]


async def test_a_document_job_uses_its_stored_glossary(
    client: AppClient, engine: FakeEngine
) -> None:
    glossary = await make_glossary(client, {"cat": "Katze"})
    response = await client.post(
        "/translate/document",
        files={"file": ("talk.srt", SRT)},
        data={"target_lang": "de", "source_lang": "en", "glossary_id": glossary["id"]},
    )
    assert response.status_code == 202, response.text
    status = await read_until(
        lambda: client.get(response.json()["status_url"]),
        lambda found: found.json()["status"] in ("done", "error"),
    )
    assert status.json()["status"] == "done", status.text
    assert "- cat => Katze" in last_prompt(engine)


async def test_tbx_round_trip_at_ten_thousand_entries(
    client: AppClient, engine: FakeEngine
) -> None:
    glossary = await make_glossary(client)
    terms = {f"term {i:05} & <co>": f"Begriff {i:05} « ü »" for i in range(10_000)}
    imported = await client.post(
        f"/glossaries/{glossary['id']}/tbx",
        files={"file": ("terms.tbx", write_tbx(terms, "en", "de"))},
        data={"source_lang": "en", "target_lang": "de"},
    )
    assert imported.status_code == 200, imported.text
    assert {k: imported.json()[k] for k in ("read", "added", "replaced")} == {
        "read": 10_000,
        "added": 10_000,
        "replaced": 0,
    }
    exported = await client.get(f"/glossaries/{glossary['id']}/tbx")
    assert exported.headers["content-type"].startswith("application/x-tbx+xml")
    back = tbx.tbxfile.parsestring(exported.content)
    assert {unit.source: unit.target for unit in back.units} == terms
    await translate(client, glossary["id"], "Use term 09999 & <co> here.")
    assert "- term 09999 & <co> => Begriff 09999 « ü »" in last_prompt(engine)
    assert len(re.findall(r"^- ", last_prompt(engine), re.MULTILINE)) == 1

    one_more = write_tbx({"one more": "noch einer"}, "en", "de")
    too_many = await client.post(
        f"/glossaries/{glossary['id']}/tbx",
        files={"file": ("more.tbx", one_more)},
        data={"source_lang": "en", "target_lang": "de"},
    )
    assert too_many.status_code == 413
    assert "at most 10000 entries" in too_many.json()["error"]["message"]


async def test_a_tbx_file_that_cannot_be_read_is_a_400_naming_the_line(client: AppClient) -> None:
    glossary = await make_glossary(client)
    broken = b'<?xml version="1.0"?>\n<martif type="TBX">\n<text><body>\n</text></martif>\n'
    response = await client.post(
        f"/glossaries/{glossary['id']}/tbx",
        files={"file": ("broken.tbx", broken)},
        data={"source_lang": "en", "target_lang": "de"},
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_tbx_file" and "line 4" in error["message"]


async def test_an_oversized_glossary_is_a_413_naming_the_limit(client: AppClient) -> None:
    entries = {f"t{i}": "x" for i in range(257)}
    response = await client.post(
        "/translate",
        json={"text": "t1", "source_lang": "en", "target_lang": "de", "glossary": entries},
    )
    assert response.status_code == 413
    assert "at most 256 entries" in response.json()["error"]["message"]
    assert "glossary_id" in response.json()["error"]["message"]
