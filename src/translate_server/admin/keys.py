"""The service key the admin domain provides its store under."""

from __future__ import annotations

from typing import TYPE_CHECKING

from translate_server.services import Key

if TYPE_CHECKING:
    from translate_server.accounts.store import AccountStore

ACCOUNT_STORE: Key[AccountStore] = Key("accounts and keys")
