"""One front-end process of several (`--api-processes N`): the app over a client of the
shared engine core, on the supervisor's listening socket."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import structlog

from translate_server.http.route_paths import RoutePaths
from translate_server.server.owner_forwarding import OwnerForwarding
from translate_server.settings import Settings

if TYPE_CHECKING:
    from litestar.types import ASGIApp

    from translate_server.inference.engine import Engine
    from translate_server.inference.engine.vllm_shared_core import FrontEndLink
    from translate_server.inference.shared_admission import SharedCapacity

log = structlog.get_logger(__name__)


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


def front_end_main(
    settings: Settings,
    link: FrontEndLink,
    sockets: list[socket.socket],
    shared: SharedCapacity,
    owner_socket: str | None,
) -> None:
    """A spawned front-end process's whole life (its exit status is `run_server`'s)."""
    from translate_server.server.logging_setup import configure_logging
    from translate_server.server.run import run_server

    configure_logging(settings.server.log_format, settings.server.log_level, front_end=link.index)
    log.info("front_end_starting", of=link.count, pid=os.getpid())

    def connect() -> Engine:
        from translate_server.inference.engine.vllm_engine import freeze_vllm_environment
        from translate_server.inference.engine.vllm_shared_core import create_vllm_client

        engine = create_vllm_client(settings.engine, link)
        freeze_vllm_environment()
        return engine

    role = FrontEndRole(
        sockets=sockets,
        shared_capacity=shared,
        owner_socket=owner_socket,
        max_body_bytes=settings.limits.max_body_bytes,
    )
    sys.exit(run_server(settings, connect, role))
