"""The limits the settings give the callers they make (the static `--api-key`s and the keyless
caller), and the limits' clock and usage flush: the base of `LimitSettings`."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from translate_server.settings.section import Section


class CallerLimitSettings(Section, frozen=True):
    # What each static API key (each its own account) may spend, or without keys the keyless
    # caller, until limits are stored on that account (`accounts set-limits`); the database's
    # keys and accounts carry only their own.
    limit_requests_per_minute: (
        Annotated[
            int,
            Meta(
                gt=0,
                description="Requests per minute of each static API key, or of the keyless "
                "caller, where its account has no limits stored (429).",
            ),
        ]
        | None
    ) = None
    limit_characters_per_minute: (
        Annotated[
            int,
            Meta(
                gt=0,
                description="Characters to translate per minute of each static API key, or of "
                "the keyless caller, where its account has no limits stored (429).",
            ),
        ]
        | None
    ) = None
    limit_characters_per_month: (
        Annotated[
            int,
            Meta(
                gt=0,
                description="Characters per calendar month (UTC) of each static API key, or of "
                "the keyless caller, where its account has no limits stored; exact across "
                "replicas (429 `insufficient_quota`; DeepL's 456).",
            ),
        ]
        | None
    ) = None
    limit_concurrent_requests: (
        Annotated[
            int,
            Meta(
                gt=0,
                description="Requests of each static API key, or of the keyless caller, in "
                "progress at once, per replica, where its account has no limits stored.",
            ),
        ]
        | None
    ) = None
    limit_window_seconds: Annotated[
        float,
        Meta(
            gt=0,
            description="The length of the rate limits' minute: 60 but in tests, which shorten "
            "it rather than wait.",
        ),
    ] = 60.0
    usage_flush_seconds: Annotated[
        float,
        Meta(
            gt=0,
            description="Seconds between writes of the usage counted in memory (per account, "
            "key, day, route, language pair) to the database.",
        ),
    ] = 5.0
