"""The app over an engine double behind a real HTTP server, for a browser to open."""

from __future__ import annotations

import asyncio
import socket
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from litestar import Litestar

from translate_server.app import create_app
from translate_server.settings import load_settings

from tests.support.fakes import FakeEngine
from tests.support.harness import eventually_sync


@contextmanager
def serve(engine: FakeEngine, **overrides: Any) -> Iterator[str]:
    """The app over `engine` behind a real uvicorn server on a free loopback port, in a thread
    with its own event loop (the browser is a separate process, it needs real HTTP). Its
    document jobs live in a directory of its own, gone with it."""
    with tempfile.TemporaryDirectory(prefix="page-server-") as documents:
        settings = load_settings(
            {
                "served_model_name": "fake-model",
                "quality_guard": False,
                "document_dir": documents,
                "memory_db": f"{documents}/memories.sqlite3",
                "glossary_db": f"{documents}/glossaries.sqlite3",
                **overrides,
            },
            environ={},
        )
        with _serving(create_app(settings, lambda: engine)) as base:
            yield base


@contextmanager
def _serving(app: Litestar) -> Iterator[str]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, lifespan="on", log_config=None))
    thread = threading.Thread(
        target=lambda: asyncio.run(server.serve(sockets=[sock])), name="page-server", daemon=True
    )
    thread.start()

    def started() -> bool:
        if not thread.is_alive():
            raise AssertionError("the test server did not start")
        return server.started

    eventually_sync(
        started, timeout=30, every=0.02, failure=lambda: "the test server did not start"
    )
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
