"""What a key may do: each route declares the one scope it needs (`http.route_paths.SCOPE`)."""

from __future__ import annotations

TRANSLATE = "translate"
DOCUMENTS = "documents"
MEMORIES_READ = "memories:read"
MEMORIES_WRITE = "memories:write"
GLOSSARIES_READ = "glossaries:read"
GLOSSARIES_WRITE = "glossaries:write"
USAGE_READ = "usage:read"
ADMIN = "admin"

ALL: frozenset[str] = frozenset(
    (
        TRANSLATE,
        DOCUMENTS,
        MEMORIES_READ,
        MEMORIES_WRITE,
        GLOSSARIES_READ,
        GLOSSARIES_WRITE,
        USAGE_READ,
        ADMIN,
    )
)
# What a key gets where none are named, and what a static `--api-key` has: everything but the
# operator's API.
DEFAULT: frozenset[str] = ALL - {ADMIN}


class UnknownScopeError(ValueError):
    pass


def parsed(names: list[str] | tuple[str, ...]) -> frozenset[str]:
    """`names` as scopes (None or empty: the default); raises UnknownScopeError naming one
    that is not a scope."""
    if not names:
        return DEFAULT
    unknown = sorted(set(names) - ALL)
    if unknown:
        raise UnknownScopeError(
            f"unknown scope {unknown[0]!r}: the scopes are {', '.join(sorted(ALL))}"
        )
    return frozenset(names)
