"""How a key looks: `ts_` + its id + `_` + a secret, so that secret scanners (and people) can
tell a leaked one, and its id (never secret) names it in lists, logs and the audit trail.
Only the SHA-256 digest of the whole key is stored: its 256 random bits make a slow hash
unnecessary, and a lookup by digest costs a microsecond."""

from __future__ import annotations

import hashlib
import secrets

KEY_PREFIX = "ts_"
ID_LENGTH = 12  # hex digits
# What `keys list` shows of a key: enough to recognise it by, nothing of its secret.
SHOWN_LENGTH = len(KEY_PREFIX) + ID_LENGTH


def new_key() -> tuple[str, str]:
    """A new key and its id."""
    key_id = secrets.token_hex(ID_LENGTH // 2)
    return f"{KEY_PREFIX}{key_id}_{secrets.token_urlsafe(32)}", key_id


def digest(key: str | bytes) -> str:
    raw = key.encode("utf-8") if isinstance(key, str) else key
    return hashlib.sha256(raw).hexdigest()


def key_id_of(key: str) -> str | None:
    """The id in a key of this format (or a prefix `keys list` shows); None for another."""
    if key.startswith(KEY_PREFIX) and len(key) >= SHOWN_LENGTH:
        return key[len(KEY_PREFIX) : SHOWN_LENGTH]
    return None


def shown_prefix(key_id: str) -> str:
    return f"{KEY_PREFIX}{key_id}"
