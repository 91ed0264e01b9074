"""The DeepL domain: DeepL's API v2 and v3 (translation, Write, usage, glossaries, style rules,
translation memories, documents), and what it keeps per API key.

It registers in two parts: ACCOUNTS, the store of what it keeps per key, opens before the
documents (a DeepL document's characters are billed to its key once translated); DOMAIN, its
routes and service, after them (the service submits DeepL's uploads)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from translate_server.compat.deepl.document_routes import deepl_document_router
from translate_server.compat.deepl.keys import DEEPL, DEEPL_ACCOUNTS
from translate_server.compat.deepl.memory_routes import deepl_memory_router
from translate_server.compat.deepl.routes import deepl_router, deepl_v3_router
from translate_server.documents.keys import DOCUMENT_BILLING, DOCUMENTS
from translate_server.memory.keys import MEMORIES
from translate_server.registration import Domain, Opening
from translate_server.settings import Settings
from translate_server.translation.keys import TRANSLATION


async def _open_accounts(opening: Opening) -> None:
    from translate_server.compat.deepl.accounts import DeepLAccounts

    if not opening.owns_stores:  # DeepL's requests are forwarded to the owner of the stores
        return
    accounts = DeepLAccounts.over(
        opening.database("accounts"), opening.services.keys.account_of_key
    )
    opening.services.provide(DEEPL_ACCOUNTS, accounts)
    # A DeepL document's characters are billed to its key once it is translated.
    opening.services.provide(DOCUMENT_BILLING, accounts.usage.add)


async def _open_service(opening: Opening) -> None:
    from translate_server.compat.deepl.service import DeepLService

    if not opening.owns_stores:  # its requests are forwarded to the owner of the stores
        return
    found = opening.services
    service = DeepLService(
        found[DEEPL_ACCOUNTS],
        found[TRANSLATION],
        found.get(DOCUMENTS),
        found[MEMORIES],
        keys=found.keys,
    )
    found.provide(DEEPL, service)


def _routes(settings: Settings) -> Sequence[Any]:
    documents = settings.documents
    return [
        deepl_router(),
        deepl_v3_router(),
        deepl_memory_router(settings.translation.max_memory_bytes),
        *([deepl_document_router(documents.max_document_bytes)] if documents.documents else []),
    ]


# What it keeps per key: before the documents, which bill DeepL's to its keys.
ACCOUNTS = Domain(
    "deepl accounts",
    open=_open_accounts,
    stores=lambda settings: ["accounts"],
    provides=(DEEPL_ACCOUNTS, DOCUMENT_BILLING),
)
# Its API: after the documents, to which its service submits DeepL's uploads.
DOMAIN = Domain(
    "deepl",
    routes=_routes,
    open=_open_service,
    # It opens only where this process owns the stores, as its accounts and the memories do;
    # the documents may be off.
    needs=(DEEPL_ACCOUNTS, TRANSLATION, MEMORIES),
    uses=(DOCUMENTS,),
    provides=(DEEPL,),
)
