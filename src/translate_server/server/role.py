"""What sets one front-end process apart (`--api-processes N`); the defaults are the single
process's: its own socket, its own admission count, its own stores."""

from __future__ import annotations

import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from translate_server.http.route_paths import RoutePaths
from translate_server.server.owner_forwarding import OwnerForwarding

if TYPE_CHECKING:
    from litestar.types import ASGIApp

    from translate_server.inference.shared_admission import SharedCapacity


@dataclass
class FrontEndRole:
    """What sets one front end apart; the defaults are the single process's: its own socket,
    its own admission count, its own stores."""

    sockets: list[socket.socket] | None = None
    shared_capacity: SharedCapacity | None = None
    # Where the owner of the stores listens, for a front end that forwards to it.
    owner_socket: str | None = None
    max_body_bytes: int = 0
    forwarding: OwnerForwarding | None = field(default=None, init=False)

    @property
    def owns_stores(self) -> bool:
        return self.owner_socket is None

    @property
    def outer(self) -> Callable[[ASGIApp, RoutePaths], ASGIApp] | None:
        return None if self.owner_socket is None else self._forwarding

    def _forwarding(self, app: ASGIApp, paths: RoutePaths) -> ASGIApp:
        assert self.owner_socket is not None
        self.forwarding = OwnerForwarding(app, paths, self.owner_socket, self.max_body_bytes)
        return self.forwarding

    def busy(self) -> int:
        return 0 if self.forwarding is None else self.forwarding.forwarding
