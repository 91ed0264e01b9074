"""One front-end process of several (`--api-processes N`): the app over a client of the
shared engine core, on the supervisor's listening socket, in the role `server.role` says."""

from __future__ import annotations

import os
import socket
import sys
from typing import TYPE_CHECKING

import structlog

from translate_server.server.role import FrontEndRole
from translate_server.settings import Settings

if TYPE_CHECKING:
    from translate_server.inference.engine import Engine
    from translate_server.inference.engine.vllm_shared_core import FrontEndLink
    from translate_server.inference.shared_admission import SharedCapacity

log = structlog.get_logger(__name__)


def front_end_main(
    settings: Settings,
    link: FrontEndLink,
    sockets: list[socket.socket],
    shared: SharedCapacity,
    owner_socket: str | None,
) -> None:
    """A spawned front-end process's whole life (its exit status is `run_server`'s)."""
    # Imported here: the supervisor imports this module to spawn front ends, and needs none
    # of the app that `run` brings in.
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
