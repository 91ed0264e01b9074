"""A document job keeps the model routing chose when it was created, for every piece: an
adapter loaded meanwhile does not take over, and one unloaded or replaced fails the job rather
than let another model finish it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, eventually, read_until, running
from tests.support.tiny_lora import fake_adapter_dir

ADMIN = {"Authorization": "Bearer admin-secret"}
# Twelve segments: three batches of four, two in flight at once (the default budget).
DOCUMENT = "".join(f"Line number {i} of the document.\n\n" for i in range(12)).encode()


async def submit(client: AppClient, source_lang: str = "en") -> dict:
    languages = {"target_lang": "de", **({"source_lang": source_lang} if source_lang else {})}
    response = await client.post(
        "/translate/document", files={"file": ("notes.txt", DOCUMENT)}, data=languages
    )
    assert response.status_code == 202, response.text
    return dict(response.json())


async def first_batch_in_flight(engine: FakeEngine) -> None:
    await eventually(engine.unfinished_requests)


async def finished(client: AppClient, submitted: dict) -> dict:
    response = await read_until(
        lambda: client.get(submitted["status_url"]),
        lambda response: response.json()["status"] in ("done", "error"),
    )
    return dict(response.json())


async def load(client: AppClient, name: str, folder: Path, serves: str) -> None:
    body = {"name": name, "path": str(folder), "serves": [serves]}
    assert (await client.post("/admin/adapters", json=body, headers=ADMIN)).status_code == 201


def adapters_used(engine: FakeEngine) -> set[str | None]:
    return {None if o.adapter is None else o.adapter.name for _, _, o in engine.requests}


@pytest.mark.parametrize("source_lang", ["en", ""])  # given, or detected from the document
async def test_an_adapter_loaded_midway_does_not_take_over_a_job_or_the_base_models(
    make_app, engine, tmp_path: Path, source_lang: str
):
    from_en = fake_adapter_dir(tmp_path, "from-en")
    app = make_app(lora=[f"from-en={from_en}@en-*"], admin_key="admin-secret")
    async with running(app) as client:
        engine.hang = True
        with_adapter = await submit(client, source_lang)
        await first_batch_in_flight(engine)
        # A more specific adapter for the pair: new requests go to it, the job does not.
        await load(client, "de", fake_adapter_dir(tmp_path, "de"), "en-de")
        engine.hang = False
        assert (await finished(client, with_adapter))["status"] == "done"
        assert adapters_used(engine) == {"from-en"}
        assert len(engine.requests) == 12

        # A job created while no adapter serves its pair keeps the base model.
        await client.delete("/admin/adapters/de", headers=ADMIN)
        await client.delete("/admin/adapters/from-en", headers=ADMIN)
        engine.requests.clear()
        engine.hang = True
        on_base = await submit(client, source_lang)
        await first_batch_in_flight(engine)
        await load(client, "from-en", from_en, "en-*")
        engine.hang = False
        assert (await finished(client, on_base))["status"] == "done"
        assert adapters_used(engine) == {None}
        translated = await client.post(
            "/translate", json={"text": "Hello", "source_lang": "en", "target_lang": "de"}
        )
        assert translated.json()["model"] == "from-en"  # routing itself would have chosen it


@pytest.mark.parametrize(
    ("change", "status"),
    [
        ("unloaded", "error"),
        ("reloaded from another folder", "error"),
        ("reloaded from the same folder", "done"),  # the same adapter, loaded again
    ],
)
async def test_a_job_whose_adapter_is_gone_fails_rather_than_finish_with_another_model(
    make_app, engine, tmp_path: Path, change: str, status: str
):
    folder = fake_adapter_dir(tmp_path, "from-en")
    app = make_app(lora=[f"from-en={folder}@en-*"], admin_key="admin-secret")
    async with running(app) as client:
        engine.hang = True
        submitted = await submit(client)
        await first_batch_in_flight(engine)
        assert (await client.delete("/admin/adapters/from-en", headers=ADMIN)).status_code == 204
        if change != "unloaded":
            elsewhere = fake_adapter_dir(tmp_path, "copy") if "another" in change else folder
            await load(client, "from-en", elsewhere, "en-*")
        engine.hang = False
        job = await finished(client, submitted)
        assert job["status"] == status
        if status == "error":
            assert (
                "`from-en` this document started with is no longer served" in (job["error_message"])
            )
        # Nothing of the job went to another model: the base model never answered for it.
        assert adapters_used(engine) == {"from-en"}
