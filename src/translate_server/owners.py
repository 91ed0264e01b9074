"""Who owns a stored thing (a document job, a memory, a glossary, a DeepL key's usage): the
SHA-256 digest of the API key that made it, so no key is ever stored."""

from __future__ import annotations

import hashlib

# The owner of every stored thing where no API keys are configured: everyone shares them.
SHARED = ""


def owner_of(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()
