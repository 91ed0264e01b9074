"""Accounts and keys made at run time through /admin, on both backends: a team's keys share
its stored things, another account's stay a 404, a revoked key is refused at once, a key is
shown once, and only the admin scope reaches the admin routes."""

from __future__ import annotations

import pytest

from tests.support.harness import running

pytestmark = pytest.mark.usefixtures("backend")

ADMIN = {"Authorization": "Bearer admin-secret"}


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def test_a_team_s_keys_share_its_memories_and_another_team_sees_none(make_app) -> None:
    async with running(make_app(admin_key="admin-secret")) as client:
        for team in ("team-a", "team-b"):
            made = await client.post("/admin/accounts", json={"name": team}, headers=ADMIN)
            assert made.status_code == 201, made.text
        keys = []
        for team, name in (("team-a", "web"), ("team-a", "ci"), ("team-b", "app")):
            made = await client.post(
                "/admin/keys", json={"account": team, "name": name}, headers=ADMIN
            )
            assert made.status_code == 201, made.text
            keys.append(made.json()["key"])
        web, ci, other = keys
        assert all(key.startswith("ts_") for key in keys)
        memory = await client.post("/memories", json={"name": "UI"}, headers=bearer(web))
        assert memory.status_code == 201, memory.text
        memory_id = memory.json()["id"]
        assert (await client.get(f"/memories/{memory_id}", headers=bearer(ci))).status_code == 200
        seen = await client.get(f"/memories/{memory_id}", headers=bearer(other))
        assert seen.status_code == 404
        assert (await client.get("/memories")).status_code == 401  # keys are required now

        listed = (await client.get("/admin/keys", headers=ADMIN)).json()["data"]
        assert {k["name"] for k in listed} == {"web", "ci", "app"}
        assert not any(key in str(listed) for key in keys)

        web_id = next(k["prefix"] for k in listed if k["name"] == "web")
        revoked = await client.post(f"/admin/keys/{web_id}/revoke", headers=ADMIN)
        assert revoked.status_code == 200 and revoked.json()["status"] == "revoked"
        assert (await client.get("/memories", headers=bearer(web))).status_code == 401
        assert (await client.get("/memories", headers=bearer(ci))).status_code == 200

        audit = (await client.get("/admin/audit", headers=ADMIN)).json()["data"]
        assert [entry["action"] for entry in audit][-1] == "keys.revoke"
        assert audit[-1]["actor"] == "admin-key" and audit[-1]["origin"]


async def test_only_the_admin_scope_reaches_the_admin_routes(make_app) -> None:
    async with running(make_app(admin_key="admin-secret")) as client:
        await client.post("/admin/accounts", json={"name": "team"}, headers=ADMIN)
        plain = (await client.post("/admin/keys", json={"account": "team"}, headers=ADMIN)).json()
        admin = (
            await client.post(
                "/admin/keys", json={"account": "team", "scopes": ["admin"]}, headers=ADMIN
            )
        ).json()
        refused = await client.get("/admin/accounts", headers=bearer(plain["key"]))
        assert refused.status_code == 403
        assert refused.json()["error"]["code"] == "missing_scope"
        assert "`admin`" in refused.json()["error"]["message"]
        listed = await client.get("/admin/accounts", headers=bearer(admin["key"]))
        assert [a["name"] for a in listed.json()["data"]] == ["team"]
        # The admin key's own scope is the admin API alone.
        refused = await client.post("/memories", json={"name": "x"}, headers=ADMIN)
        assert refused.status_code == 403
