"""A finished job's review over the engine double: GET /translate/document/{id}/segments lists
its segments beside their sources with their estimates, warnings and memory matches, and
PATCH .../segments/{n} edits one, approves it (the result rebuilt: no `#, fuzzy`, XLIFF
`translated`) and saves it as a correction into a memory."""

from __future__ import annotations

from pathlib import Path

import polib
import pytest
from translate.storage import xliff

from tests.integration.documents.test_document_api import CATALOG, _german, finished, submit
from tests.integration.memory.test_memory_api import make_memory
from tests.support.estimate_models import estimate_models
from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, running

XLIFF = b"""<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file original="app" source-language="en" target-language="de" datatype="plaintext">
    <body>
      <trans-unit id="1"><source>Good morning, everyone.</source></trans-unit>
      <trans-unit id="2"><source>Thank you for coming.</source></trans-unit>
    </body>
  </file>
</xliff>
"""


@pytest.fixture
def reviewing(make_app, tmp_path: Path):  # type: ignore[no-untyped-def]
    """An app whose engine echoes "Thank you for coming." (the quality guard's `echo`: it
    needs review) and translates the rest."""
    models = estimate_models(tmp_path)
    return make_app(
        FakeEngine(responder=_german), quality_guard=True, quality_estimate_models=models
    )


async def _done(client: AppClient, data: bytes, name: str) -> dict:
    submitted = (await submit(client, data, name, source_lang="en")).json()
    assert (await finished(client, submitted))["status"] == "done"
    return submitted


def _path(submitted: dict, suffix: str = "") -> str:
    return (
        f"/translate/document/{submitted['document_id']}/segments{suffix}"
        f"?key={submitted['document_key']}"
    )


async def test_a_flagged_entry_fixed_saved_as_a_correction_and_approved(reviewing) -> None:
    async with running(reviewing) as client:
        memory_id = await make_memory(client)
        submitted = await _done(client, CATALOG, "app.po")
        listed = (await client.get(_path(submitted))).json()
        edited = await client.patch(
            _path(submitted, "/2"),
            json={"translation": "Danke fürs Kommen.", "approved": True, "memory": memory_id},
        )
        again = (await client.get(_path(submitted))).json()
        result = await client.get(submitted["result_url"])
        status = (await client.get(submitted["status_url"])).json()
        entries = (await client.get(f"/memories/{memory_id}/entries")).json()
    segments = listed["data"]
    assert [s["source"] for s in segments] == [
        "Good morning, everyone.",
        "Welcome to the talk.",
        "Thank you for coming.",
    ]
    assert (listed["needs_review"], listed["target_lang"]) == (1, "de")
    flagged = segments[2]
    assert flagged["needs_review"] and flagged["translation"] == "Thank you for coming."
    assert "echo" in flagged["warnings"] and 0.0 <= flagged["estimate"] < 0.5
    assert not segments[0]["needs_review"] and segments[0]["warnings"] == []
    assert edited.status_code == 200, edited.text
    body = edited.json()
    assert body["needs_review"] == 0
    assert body["segment"] | {"estimate": None} == {
        "index": 2,
        "source": "Thank you for coming.",
        "translation": "Danke fürs Kommen.",
        "estimate": None,
        "needs_review": False,
        "warnings": ["echo"],
        "memory_match": None,
        "edited": True,
        "machine_translation": "Thank you for coming.",
        "approved": True,
    }
    correction = body["correction"]
    assert (correction["changed"], correction["entry"]["target"]) == (True, "Danke fürs Kommen.")
    assert again["data"][2] == body["segment"] and again["needs_review"] == 0
    # The downloaded file has the fix and no fuzzy flag; the status lists nothing to review.
    entry = polib.pofile(result.content.decode()).find("Thank you for coming.")
    assert (entry.msgstr, entry.flags) == ("Danke fürs Kommen.", [])
    assert (status["needs_review"], status["review"]) == (0, [])
    assert [(e["source"], e["target"]) for e in entries["data"]] == [
        ("Thank you for coming.", "Danke fürs Kommen.")
    ]


async def test_an_xliff_unit_approved_is_translated_and_flagged_again_needs_review(
    reviewing,
) -> None:
    async with running(reviewing) as client:
        submitted = await _done(client, XLIFF, "app.xlf")
        approved = await client.patch(_path(submitted, "/1"), json={"approved": True})
        first = await client.get(submitted["result_url"])
        await client.patch(_path(submitted, "/0"), json={"approved": False})
        second = await client.get(submitted["result_url"])
    assert approved.status_code == 200, approved.text
    assert _states(first.content) == ["translated", "translated"]
    assert _states(second.content) == ["needs-review-translation", "translated"]
    units = xliff.xlifffile.parsestring(second.content).units
    assert str(units[1].target) == "Thank you for coming."  # approved as it was


def _states(data: bytes) -> list[str]:
    return [
        unit.xmlelement.find(unit.namespaced("target")).get("state")
        for unit in xliff.xlifffile.parsestring(data).units
    ]


async def test_refusals(reviewing) -> None:
    async with running(reviewing) as client:
        submitted = await _done(client, CATALOG, "app.po")
        wrong_key = await client.get(
            f"/translate/document/{submitted['document_id']}/segments?key=nope"
        )
        no_segment = await client.patch(_path(submitted, "/3"), json={"approved": True})
        no_memory = await client.patch(
            _path(submitted, "/2"), json={"translation": "Danke.", "memory": "mem_unknown"}
        )
        unchanged = (await client.get(_path(submitted))).json()["data"][2]
        not_json = await client.patch(_path(submitted, "/2"), content=b"approved")
    assert wrong_key.status_code == 404
    assert no_segment.status_code == 404 and no_segment.json()["error"]["param"] == "segment"
    # An unknown memory is refused before the segment is changed.
    assert no_memory.status_code == 404 and no_memory.json()["error"]["param"] == "memory"
    assert unchanged["translation"] == "Thank you for coming." and not unchanged["edited"]
    assert not_json.status_code in (400, 415)


async def test_segments_before_the_job_is_done_are_a_409(make_app) -> None:
    engine = FakeEngine(token_delay=0.05)  # as the result route's own 409 test
    async with running(make_app(engine)) as client:
        submitted = (await submit(client, CATALOG, "app.po", source_lang="en")).json()
        early = await client.get(_path(submitted))
    assert early.status_code == 409
    assert early.json()["error"]["code"] == "document_not_ready"
