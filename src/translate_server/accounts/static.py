"""The limits of the callers the settings make: each static `--api-key` (an account of its
own) and, where no key is required, the keyless caller. The `--limit-*` settings are their
account's limits until `accounts set-limits` stores some on that account."""

from __future__ import annotations

from translate_server.accounts.directory import KeyDirectory
from translate_server.limits.policy import Limits
from translate_server.settings import LimitSettings, Settings


def static_limits(settings: LimitSettings) -> Limits:
    return Limits(
        requests_per_minute=settings.limit_requests_per_minute,
        characters_per_minute=settings.limit_characters_per_minute,
        characters_per_month=settings.limit_characters_per_month,
        concurrent_requests=settings.limit_concurrent_requests,
    )


def key_directory(settings: Settings) -> KeyDirectory:
    """The key cache with the settings' keys and their limits; its store, the accounts
    database, is set and loaded by the accounts domain (`admin.domain`)."""
    return KeyDirectory(
        settings.server.api_keys,
        settings.server.admin_key,
        default_limits=static_limits(settings.limits),
    )
