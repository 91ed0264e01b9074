"""The accounts and keys store's contract on both backends (`databases`: SQLite files, and
PostgreSQL in the postgres tier), and the key cache every replica keeps of it."""

from __future__ import annotations

import time

import pytest

from translate_server.accounts import scopes
from translate_server.accounts.adoption import adopt_owners
from translate_server.accounts.directory import KeyDirectory
from translate_server.accounts.records import Actor
from translate_server.accounts.store import AccountStore
from translate_server.errors import AccountExistsError, AccountNotFoundError, KeyNotFoundError
from translate_server.limits.policy import Limits
from translate_server.memory.store import MemoryStore
from translate_server.owners import SHARED, owner_of
from translate_server.storage.opening import StoreDatabases

CLI = Actor(who="cli", origin="test")


@pytest.fixture
async def store(databases: StoreDatabases) -> AccountStore:
    return AccountStore(await databases.migrated("accounts"))


async def test_a_key_is_found_by_itself_its_id_and_its_prefix_never_stored(
    store: AccountStore,
) -> None:
    await store.create_account(CLI, "team-a", Limits(requests_per_minute=120))
    made = await store.create_key(CLI, "team-a", name="ci", scopes=scopes.DEFAULT)
    assert made.key.startswith(f"ts_{made.record.key_id}_")
    for ref in (made.key, made.record.key_id, made.record.prefix):
        assert (await store.key(ref)).key_id == made.record.key_id
    with pytest.raises(KeyNotFoundError):
        await store.key("ts_000000000000")
    _, _, keys = await store.snapshot()
    assert made.key not in repr(keys)


async def test_accounts_are_named_once_and_limits_change(store: AccountStore) -> None:
    await store.create_account(CLI, "team-a")
    with pytest.raises(AccountExistsError):
        await store.create_account(CLI, "team-a")
    with pytest.raises(AccountNotFoundError):
        await store.create_key(CLI, "nobody", scopes=scopes.DEFAULT)
    changed = await store.set_account_limits(CLI, "team-a", Limits(characters_per_month=500_000))
    assert (await store.account("team-a")).limits == changed.limits
    assert [a.name for a in await store.accounts()] == ["team-a"]


async def test_the_cache_follows_revocation_rotation_and_limits(store: AccountStore) -> None:
    await store.create_account(CLI, "team-a", Limits(characters_per_month=10))
    made = await store.create_key(CLI, "team-a", scopes=frozenset({"translate"}))
    directory = KeyDirectory(store=store)
    await directory.load()
    caller = directory.caller(made.key.encode())
    assert caller is not None and caller.scopes == {"translate"}
    assert caller.account == made.record.account_id
    assert caller.account_limits == Limits(characters_per_month=10)
    assert directory.required

    await store.set_key_limits(CLI, made.record.prefix, Limits(requests_per_minute=5))
    rotated = await store.rotate_key(CLI, made.record.key_id, grace_seconds=3600)
    assert await store.revision() != directory.revision
    await directory.load()
    old, new = directory.caller(made.key.encode()), directory.caller(rotated.key.encode())
    assert old is not None and new is not None  # the old one within its grace
    assert new.key_limits == Limits(requests_per_minute=5) and new.account == old.account

    await store.revoke_key(CLI, rotated.key)
    await directory.load()
    assert directory.caller(rotated.key.encode()) is None
    assert directory.required  # revoking keys never opens the server

    await directory.flush()
    assert (await store.key(made.record.key_id)).last_used is not None
    actions = [entry.action for entry in await store.audit()]
    assert actions == [
        "accounts.create", "keys.create", "keys.set_limits", "keys.rotate", "keys.revoke",
    ]  # fmt: skip


async def test_a_rotated_key_ends_with_its_grace(store: AccountStore) -> None:
    await store.create_account(CLI, "team-a")
    made = await store.create_key(CLI, "team-a", scopes=scopes.DEFAULT)
    await store.rotate_key(CLI, made.key, grace_seconds=0)
    directory = KeyDirectory(store=store)
    await directory.load()
    assert directory.caller(made.key.encode()) is None
    assert (await store.key(made.key)).expires is not None
    assert (await store.key(made.key)).expires <= time.time()  # type: ignore[operator]


async def test_without_keys_anywhere_the_server_is_open(store: AccountStore) -> None:
    directory = KeyDirectory(store=store)
    await directory.load()
    assert not directory.required
    static = KeyDirectory(("k1",), store=store)
    await static.load()
    caller = static.caller(b"k1")
    assert static.required and caller is not None and "admin" not in caller.scopes


async def test_the_keyless_caller_gets_the_limits_set_on_keyless(store: AccountStore) -> None:
    with pytest.raises(AccountExistsError):
        await store.create_account(CLI, "keyless")  # the name is the keyless caller's
    await store.set_account_limits(CLI, "keyless", Limits(requests_per_minute=5))
    directory = KeyDirectory(store=store)
    await directory.load()
    assert directory.keyless.account_limits == Limits(requests_per_minute=5)
    assert not directory.required  # limits for the keyless caller require no key


async def test_the_limit_settings_hold_until_limits_are_stored(store: AccountStore) -> None:
    """`--limit-*` are the static keys' and the keyless caller's account limits until their
    account has limits of its own, which replace them whole."""
    defaults = Limits(requests_per_minute=60, characters_per_month=1000)
    directory = KeyDirectory(("k1",), store=store, default_limits=defaults)
    await directory.load()
    static = directory.caller(b"k1")
    assert static is not None and static.account_limits == defaults
    assert directory.keyless.account_limits == defaults
    await store.set_account_limits(CLI, "keyless", Limits(requests_per_minute=5))
    await store.adopt({owner_of("k1")})
    await store.set_account_limits(CLI, f"key-{owner_of('k1')[:12]}", Limits(concurrent_requests=2))
    await directory.load()
    static = directory.caller(b"k1")
    assert static is not None and static.account_limits == Limits(concurrent_requests=2)
    assert directory.keyless.account_limits == Limits(requests_per_minute=5)


async def test_owners_of_memories_alone_become_accounts_once(
    store: AccountStore, databases: StoreDatabases
) -> None:
    memory = await databases.migrated("memory")
    await MemoryStore(memory).create(owner_of("carol"), "Carol's")
    await MemoryStore(memory).create(SHARED, "everyone's")
    assert await adopt_owners(store, {"memory": memory}) == 1
    assert await adopt_owners(store, {"memory": memory}) == 0
    assert [a.account_id for a in await store.accounts()] == [owner_of("carol")]
    assert (await store.audit())[-1].action == "accounts.adopt"
