"""Who owns a stored thing (a document job, a memory, a glossary, a DeepL key's usage): the
SHA-256 digest of the API key that made it, so no key is ever stored."""

from __future__ import annotations

import hashlib


def owner_of(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()
