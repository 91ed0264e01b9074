"""The limits one key or one account carries. Every field is optional: `None` is no limit."""

from __future__ import annotations

import msgspec


class Limits(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    requests_per_minute: int | None = None
    characters_per_minute: int | None = None
    # A quota: characters billed per calendar month (UTC), exact across replicas.
    characters_per_month: int | None = None
    concurrent_requests: int | None = None
    documents_in_flight: int | None = None

    @property
    def unlimited(self) -> bool:
        return self == NO_LIMITS


NO_LIMITS = Limits()
