"""Who may see a job: its secret key, stored only as a SHA-256 digest and compared in constant
time, and its owner. Every mismatch is the same 404 as an unknown id, so a caller learns
nothing about which ids exist."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from translate_server.documents.job import Job
from translate_server.errors import DocumentNotFoundError
from translate_server.owners import SHARED

# Passed as the owner where a job's secret key alone authorizes (LibreTranslate's download link,
# followed without an API key); no owner digest (hex) can equal it.
KEY_ALONE = "key-alone"

_NO_DIGEST = bytes(32)


def new_key() -> tuple[str, bytes]:
    """A fresh secret key for a job and the digest to store in its place."""
    key = secrets.token_urlsafe(32)
    return key, key_digest(key)


def key_digest(key: str) -> bytes:
    return hashlib.sha256(key.encode()).digest()


def authorized(found: tuple[Job, bytes] | None, key: str, owner: str) -> Job:
    """The job found (with its key's digest), when `key` is its key (and `owner` its owner,
    where it has one, i.e. is not SHARED, unless the caller passes KEY_ALONE); else the 404."""
    # An unknown id costs the same comparison as a wrong key.
    digest = _NO_DIGEST if found is None else found[1]
    key_ok = hmac.compare_digest(digest, key_digest(key))
    if (
        found is None
        or not key_ok
        or (found[0].owner != SHARED and owner != KEY_ALONE and found[0].owner != owner)
    ):
        raise not_found()
    return found[0]


def not_found() -> DocumentNotFoundError:
    return DocumentNotFoundError("No document with this id and key.", param="document_id")
