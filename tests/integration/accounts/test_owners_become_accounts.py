"""Stores written before accounts existed (tests/fixtures/stores_before_migrations, made by the
stores' own code then, their owners the digests of the keys "alice" and "bob"), served after
the upgrade with those keys as static `--api-key`s: each key's owner is an account now, and
every memory, glossary, style rule and usage count is still its key's alone (document jobs
keep their owners as they were; the fixture's have outlived their retention)."""

from __future__ import annotations

from pathlib import Path

from translate_server.accounts.store import AccountStore
from translate_server.owners import owner_of
from translate_server.storage.opening import migrated_database

from tests.support.adopted import copy_of_fixtures
from tests.support.harness import running
from tests.support.stores import own_stores


def as_(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def test_each_key_s_things_are_its_account_s_after_the_upgrade(
    make_app, tmp_path: Path
) -> None:
    folder = copy_of_fixtures(tmp_path / "data")
    app = make_app(**own_stores(folder), api_key=("alice", "bob", "carol"))
    async with running(app) as client:
        alice = await client.get("/memories", headers=as_("alice"))
        assert "Alice's café terms" in [m["name"] for m in alice.json()["data"]]
        assert "Alice's café terms" not in str(
            (await client.get("/memories", headers=as_("bob"))).json()
        )
        names = {
            key: sorted(
                g["name"]
                for g in (await client.get("/v2/glossaries", headers=as_(key))).json()["glossaries"]
            )
            for key in ("alice", "bob", "carol")
        }
        assert names == {"alice": ["Pets"], "bob": ["Bob's"], "carol": []}  # v2: one pair each
        usage = {
            key: (await client.get("/v2/usage", headers=as_(key))).json()["character_count"]
            for key in ("alice", "bob")
        }
        assert usage["alice"] >= 1240 and usage["bob"] == 77
        rules = (await client.get("/v3/style_rules", headers=as_("alice"))).json()
        assert [r["name"] for r in rules["style_rules"]] == ["House style"]
        assert (await client.get("/v3/style_rules", headers=as_("bob"))).json()["style_rules"] == []
    async with migrated_database(folder / "glossaries.sqlite3", "accounts") as database:
        accounts = {a.account_id: a.name for a in await AccountStore(database).accounts()}
    # Alice's memories and document jobs and Bob's glossary: one account each, named by
    # their digest's start; nothing for the shared owner of a server without keys.
    assert accounts == {
        owner_of("alice"): f"key-{owner_of('alice')[:12]}",
        owner_of("bob"): f"key-{owner_of('bob')[:12]}",
    }
