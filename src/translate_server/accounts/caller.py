"""Who a request comes from, once its key is checked: the gate puts one `Caller` in the ASGI
scope's state under `CALLER`, and everything after it (scopes, limits, owners of stored things,
usage, the log line) reads it there."""

from __future__ import annotations

import msgspec

from translate_server.limits.policy import NO_LIMITS, Limits

CALLER = "caller"


class Caller(msgspec.Struct, frozen=True, kw_only=True):
    # The key's id (never the key): what usage, the log line and the audit trail name.
    key_id: str
    # The account that owns what this caller stores and is billed for.
    account: str
    scopes: frozenset[str]
    key_limits: Limits = NO_LIMITS
    account_limits: Limits = NO_LIMITS
