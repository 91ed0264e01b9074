"""The callers of a server whose keys are the static list (`--api-key`, `--api-key-file`):
each key an account of its own, with the `--limit-*` settings as its limits; without keys,
one keyless caller with the same limits. The one place a key becomes a `Caller`: a keys
database replaces `StaticCallers` with its own `caller(key)`."""

from __future__ import annotations

from translate_server.accounts.caller import Caller
from translate_server.limits.policy import Limits
from translate_server.owners import SHARED, caller_owner, owner_of
from translate_server.settings import LimitSettings

# Every scope: a static key may do all a key may.
ALL_SCOPES = frozenset({"*"})
KEYLESS_ID = "keyless"


def static_limits(settings: LimitSettings) -> Limits:
    return Limits(
        requests_per_minute=settings.limit_requests_per_minute,
        characters_per_minute=settings.limit_characters_per_minute,
        characters_per_month=settings.limit_characters_per_month,
        concurrent_requests=settings.limit_concurrent_requests,
    )


def key_id(key: str) -> str:
    """A key's id: the first 16 hex digits of its digest, never the key."""
    return owner_of(key)[:16]


class StaticCallers:
    def __init__(self, limits: Limits, *, keyed: bool) -> None:
        self.limits = limits
        self.keyed = keyed
        self._keyless = Caller(
            key_id=KEYLESS_ID, account=SHARED, scopes=ALL_SCOPES, key_limits=limits
        )
        self._known: dict[str, Caller] = {}

    def caller(self, key: str) -> Caller:
        """The caller of an accepted `key` ("" where the server has no keys)."""
        if not self.keyed:
            return self._keyless
        found = self._known.get(key)
        if found is None:
            found = Caller(
                key_id=key_id(key),
                account=caller_owner(key, keyed=True),
                scopes=ALL_SCOPES,
                key_limits=self.limits,
            )
            if len(self._known) < 10_000:  # the static keys are few; a bound all the same
                self._known[key] = found
        return found
