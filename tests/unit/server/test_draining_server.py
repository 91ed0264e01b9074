"""The SIGTERM handler of the server: it must not log, since a signal handler runs between any
two bytecodes of the main thread, which may be inside the logger holding its write lock (seen:
a server that never exited, its main thread waiting on that lock inside the handler)."""

from __future__ import annotations

import asyncio
import signal

import uvicorn
from structlog.testing import capture_logs

from translate_server.server.run import DrainingServer


async def test_the_signal_handler_only_schedules_the_drain(monkeypatch) -> None:
    server = DrainingServer(uvicorn.Config(app=None), grace=1.0)
    server._loop = asyncio.get_running_loop()  # what serve() sets
    server.started = True
    drained = asyncio.Event()

    async def drain() -> None:
        drained.set()

    monkeypatch.setattr(server, "_drain", drain)
    with capture_logs() as logs:
        server.handle_exit(signal.SIGTERM, None)
        assert logs == []  # nothing from inside the handler
        await asyncio.wait_for(drained.wait(), 5)
    assert [(entry["event"], entry["signal"]) for entry in logs] == [("draining", "SIGTERM")]


async def test_a_second_signal_stops_the_server_without_the_drain(monkeypatch) -> None:
    server = DrainingServer(uvicorn.Config(app=None), grace=1.0)
    server._loop = asyncio.get_running_loop()
    server.started = True
    monkeypatch.setattr(server, "_drain", lambda: asyncio.sleep(0))
    server.handle_exit(signal.SIGTERM, None)
    assert not server.should_exit  # the first one drains
    server.handle_exit(signal.SIGTERM, None)
    assert server.should_exit
