"""Whose a stored thing is (a memory, a document job, a DeepL glossary, style rule or usage
count): an account's id (`accounts`). A static `--api-key`'s account has the SHA-256 digest of
the key for its id, as its things had before accounts existed, so no key is ever stored;
`SHARED` is the keyless caller's, where the server requires no key.

The DeepL surface keeps accounts per key even then (`owner_of` of whatever key its client
sends, as DeepL does): a DeepL client's usage and glossaries are its key's, on any server.
"""

from __future__ import annotations

import hashlib

# The owner of what is made where no API keys are configured: every client's alike.
SHARED = ""


def owner_of(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()
