"""Optional API keys: `Authorization: Bearer <key>`, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac

from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler

from translate_server.errors import AuthenticationError


class ApiKeyGuard:
    def __init__(self, keys: tuple[str, ...]) -> None:
        # Digests of equal length: the comparison time says nothing about a key's length.
        self._digests = tuple(_digest(key) for key in keys)

    def __call__(self, connection: ASGIConnection, _: BaseRouteHandler) -> None:
        if not self._accepts(connection.headers.get("authorization", "")):
            raise AuthenticationError(
                "A valid API key is required: send `Authorization: Bearer <key>`.",
                headers={"WWW-Authenticate": "Bearer"},
            )

    def _accepts(self, header: str) -> bool:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return False
        presented = _digest(token.strip())
        # Check every key, whatever matches, so timing does not reveal which one did.
        return sum(hmac.compare_digest(presented, d) for d in self._digests) > 0


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode()).digest()
