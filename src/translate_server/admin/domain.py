"""The accounts domain: the accounts and keys store, the key cache the gate reads filled from
it and kept fresh for the app's life, and the operator's API over them (`/admin/...`, with
the accounts' usage, `/admin/usage`). The limits and usage themselves are the gate's
(`limits.Limiter`), opened with the app over the accounts' database, migrated here."""

from __future__ import annotations

from typing import TYPE_CHECKING

import structlog

from translate_server.admin.keys import ACCOUNT_STORE
from translate_server.admin.routes import admin_accounts_router
from translate_server.admin.usage_routes import usage_router
from translate_server.registration import Domain, Opening
from translate_server.storage.database import Database

if TYPE_CHECKING:
    from translate_server.accounts.store import AccountStore

log = structlog.get_logger(__name__)


async def _open(opening: Opening) -> None:
    from translate_server.accounts.store import AccountStore

    keys = opening.services.keys
    keys.store = AccountStore(await _database(opening))
    await keys.load()
    log.info("keys", summary=keys.summary())
    opening.start_task(keys.poll())
    opening.resources.push_async_callback(keys.flush)  # after the poll stops
    if opening.owns_stores:
        await _adopt(opening, keys.store)
        opening.services.provide(ACCOUNT_STORE, keys.store)


async def _adopt(opening: Opening, store: AccountStore) -> None:
    """Accounts for the owners of the memories and document jobs stored before accounts."""
    from translate_server.accounts.adoption import OWNED, adopt_owners

    databases = opening.services.databases
    assert databases is not None  # this process owns the stores
    found = {name: opening.database(name) for name in OWNED if name in databases.stores}
    if made := await adopt_owners(store, found):
        log.info("accounts_adopted", accounts=made)
        await opening.services.keys.load()


async def _database(opening: Opening) -> Database:
    """The accounts database: the stores' where this process owns them; else one of its own,
    for the keys alone (every front end checks keys; its other requests are forwarded)."""
    if opening.owns_stores:
        return opening.database("accounts")
    from translate_server.storage.opening import StoreDatabases

    databases = StoreDatabases.of(opening.settings)
    opening.resources.push_async_callback(databases.close)
    return await databases.migrated("accounts")


DOMAIN = Domain(
    "accounts",
    routes=lambda settings: [admin_accounts_router(), usage_router()],
    open=_open,
    stores=lambda settings: ["accounts"],
    provides=(ACCOUNT_STORE,),
)
