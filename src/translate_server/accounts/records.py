"""Accounts and keys as the store reads them and the CLI and admin API show them."""

from __future__ import annotations

import msgspec

from translate_server.limits.policy import Limits

ACTIVE = "active"
ROTATED = "rotated"  # replaced by a new key; works until `expires` (the rotation's grace)
REVOKED = "revoked"  # final


class Account(msgspec.Struct, frozen=True, kw_only=True):
    account_id: str
    name: str
    limits: Limits
    created: int


class KeyRecord(msgspec.Struct, frozen=True, kw_only=True):
    key_id: str
    prefix: str
    name: str
    account_id: str
    account: str  # the account's name
    scopes: list[str]
    limits: Limits
    created: int
    expires: int | None = None
    last_used: int | None = None
    status: str = ACTIVE

    def usable_at(self, now: float) -> bool:
        return self.status != REVOKED and (self.expires is None or now < self.expires)


class NewKey(msgspec.Struct, frozen=True, kw_only=True):
    """A key just made: the only time its value is shown."""

    key: str
    record: KeyRecord


class AuditEntry(msgspec.Struct, frozen=True, kw_only=True):
    entry_id: int
    at: int
    actor: str
    origin: str
    action: str
    target: str
    detail: dict[str, object]


class Actor(msgspec.Struct, frozen=True, kw_only=True):
    """Who makes a change, and from where, for the audit log."""

    who: str
    origin: str
