"""Whose a stored thing is (a memory, a document job, a DeepL glossary, style rule or usage
count), decided here for every store: the SHA-256 digest of the API key that made it, so no key
is ever stored; `SHARED` for what is made where the server has no API keys.

The DeepL surface keeps accounts per key even then (`owner_of` of whatever key its client
sends, as DeepL does): a DeepL client's usage and glossaries are its key's, on any server.
"""

from __future__ import annotations

import hashlib

from translate_server.errors import AuthenticationError

# The owner of what is made where no API keys are configured: every client's alike.
SHARED = ""


def owner_of(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def caller_owner(key: str, *, keyed: bool) -> str:
    """The owner of what a caller makes and sees: its key's digest where API keys are
    configured (the key already accepted by the gate or the route), else SHARED."""
    if not keyed:
        return SHARED
    if not key:  # unreachable past the checks; never the shared owner for a keyless call
        raise AuthenticationError("A valid API key is required.")
    return owner_of(key)
