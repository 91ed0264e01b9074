"""The accounts domain: the accounts and keys store, the key cache the gate reads filled from
it and kept fresh for the app's life, and the operator's API over them (`/admin/...`)."""

from __future__ import annotations

import structlog

from translate_server.admin.keys import ACCOUNT_STORE
from translate_server.admin.routes import admin_accounts_router
from translate_server.registration import Domain, Opening
from translate_server.storage.database import Database

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
        opening.services.provide(ACCOUNT_STORE, keys.store)


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
    routes=lambda settings: [admin_accounts_router()],
    open=_open,
    stores=lambda settings: ["accounts"],
    provides=(ACCOUNT_STORE,),
)
