"""/admin/adapters: adapters loaded and unloaded at run time, behind the admin key alone,
bounded by --max-loras."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.harness import running
from tests.support.tiny_lora import fake_adapter_dir as adapter_dir

EN_DE = {"text": "Good morning", "source_lang": "en", "target_lang": "de"}

ADMIN = {"Authorization": "Bearer admin-secret"}


async def test_an_adapter_loaded_at_run_time_serves_until_it_is_unloaded(
    make_app, engine, tmp_path: Path
):
    folder = adapter_dir(tmp_path, "de")
    async with running(make_app(enable_lora=True, admin_key="admin-secret")) as client:
        assert (await client.post("/translate", json=EN_DE)).json()["model"] == "fake-model"
        loaded = await client.post(
            "/admin/adapters",
            json={"name": "de", "path": str(folder), "serves": ["en-de"]},
            headers=ADMIN,
        )
        assert loaded.status_code == 201, loaded.text
        assert loaded.json() == {
            "name": "de",
            "path": str(folder),
            "serves": ["en-de"],
            "rank": 8,
            "parent": "fake-model",
        }
        listed = (await client.get("/admin/adapters", headers=ADMIN)).json()
        assert [a["name"] for a in listed["data"]] == ["de"]
        assert "de" in [m["id"] for m in (await client.get("/v1/models")).json()["data"]]
        assert (await client.post("/translate", json=EN_DE)).json()["model"] == "de"

        assert (await client.delete("/admin/adapters/de", headers=ADMIN)).status_code == 204
        assert engine.adapters == {}
        assert (await client.post("/translate", json=EN_DE)).json()["model"] == "fake-model"
        gone = await client.post("/translate", json={**EN_DE, "model": "de"})
        assert gone.status_code == 404
        again = await client.delete("/admin/adapters/de", headers=ADMIN)
        assert again.status_code == 404
        assert again.json()["error"]["code"] == "adapter_not_found"


async def test_an_adapter_loaded_again_never_serves_the_old_ones_cached_translations(
    make_app, engine, tmp_path: Path
):
    folder = adapter_dir(tmp_path, "de")
    body = {"name": "de", "path": str(folder), "serves": ["en-de"]}
    async with running(make_app(enable_lora=True, admin_key="admin-secret")) as client:
        for _ in range(2):
            await client.post("/admin/adapters", json=body, headers=ADMIN)
            for _ in range(2):
                assert (await client.post("/translate", json=EN_DE)).json()["model"] == "de"
            await client.delete("/admin/adapters/de", headers=ADMIN)
    ids = [options.adapter.id for _, _, options in engine.requests if options.adapter]
    assert len(ids) == 2  # one engine request per load; each load's repeat was cached
    assert ids[0] != ids[1]


async def test_loads_are_bounded_by_max_loras_and_names_are_unique(make_app, tmp_path: Path):
    app = make_app(enable_lora=True, max_loras=1, admin_key="admin-secret")
    async with running(app) as client:

        async def load(name: str) -> dict:
            response = await client.post(
                "/admin/adapters",
                json={"name": name, "path": str(adapter_dir(tmp_path, name))},
                headers=ADMIN,
            )
            return {"status": response.status_code, **response.json()}

        assert (await load("one"))["status"] == 201
        full = await load("two")
        assert (full["status"], full["error"]["code"]) == (409, "too_many_adapters")
        await client.delete("/admin/adapters/one", headers=ADMIN)
        assert (await load("two"))["status"] == 201
        taken = await client.post(
            "/admin/adapters", json={"name": "two", "path": str(tmp_path / "two")}, headers=ADMIN
        )
        assert taken.status_code == 409


async def test_a_folder_that_holds_no_adapter_is_a_400(make_app, tmp_path: Path):
    (tmp_path / "odd").mkdir()
    (tmp_path / "odd" / "adapter_config.json").write_text(json.dumps({"peft_type": "IA3"}))
    async with running(make_app(enable_lora=True, admin_key="admin-secret")) as client:
        for path in (tmp_path / "none", tmp_path / "odd"):
            response = await client.post(
                "/admin/adapters", json={"name": "x", "path": str(path)}, headers=ADMIN
            )
            assert response.status_code == 400
            assert response.json()["error"]["code"] == "invalid_adapter"


async def test_the_admin_routes_need_the_admin_key_and_not_a_client_key(make_app):
    app = make_app(enable_lora=True, admin_key="admin-secret", api_key=["client-key"])
    async with running(app) as client:
        client_key = {"Authorization": "Bearer client-key"}
        assert (await client.get("/admin/adapters", headers=client_key)).status_code == 401
        assert (await client.get("/admin/adapters")).status_code == 401
        assert (await client.get("/admin/adapters", headers=ADMIN)).status_code == 200


async def test_without_an_admin_key_the_routes_do_not_exist(make_app):
    async with running(make_app(enable_lora=True)) as client:
        response = await client.get("/admin/adapters", headers=ADMIN)
        assert response.status_code == 404


async def test_loading_needs_an_engine_started_for_lora(make_app, tmp_path: Path):
    async with running(make_app(admin_key="admin-secret")) as client:
        response = await client.post(
            "/admin/adapters",
            json={"name": "de", "path": str(adapter_dir(tmp_path, "de"))},
            headers=ADMIN,
        )
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "lora_not_enabled"
