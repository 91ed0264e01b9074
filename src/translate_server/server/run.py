"""Running the app under uvicorn: graceful draining on SIGTERM, a non-zero exit on engine death."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Callable
from types import FrameType

import structlog
import uvicorn

from translate_server.app import create_app
from translate_server.inference.engine import Engine
from translate_server.server.heap import freeze_startup_heap
from translate_server.server.role import FrontEndRole
from translate_server.services import Services
from translate_server.settings import Settings

log = structlog.get_logger(__name__)

EXIT_ENGINE_DIED = 1
EXIT_STARTUP_FAILED = 3
# A draining server closes its socket only once no request has been refused for this long:
# until a load balancer's health checks notice the drain it keeps sending requests, which
# are refused (503, retried elsewhere); a request that met the socket closing would fail.
DRAIN_QUIET_SECONDS = 1.0


class DrainingServer(uvicorn.Server):
    """The first SIGTERM/SIGINT stops admission (503, /health not ready) and lets in-flight
    requests finish for up to `grace` seconds; what is still running then is aborted and
    answered, and only then does uvicorn shut down. A second signal exits at once."""

    def __init__(
        self, config: uvicorn.Config, grace: float, busy: Callable[[], int] = lambda: 0
    ) -> None:
        super().__init__(config)
        self.grace = grace
        # Requests in progress that admission does not count (those forwarded elsewhere).
        self.busy = busy
        self.exit_code = 0
        self._draining = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._drain_task: asyncio.Task[None] | None = None

    # uvicorn's own `serve` is unannotated; this keeps its signature.
    async def serve(self, sockets=None) -> None:  # type: ignore[no-untyped-def]
        self._loop = asyncio.get_running_loop()
        await super().serve(sockets)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self._draining or self._loop is None or not self.started:
            super().handle_exit(sig, frame)
            return
        self._draining = True
        # Nothing else here: a signal handler runs between any two bytecodes of the main
        # thread, which may be inside the logger holding its lock; logging from here would
        # wait on that lock forever. The loop logs, once the handler has returned.
        self._loop.call_soon_threadsafe(self._start_drain, signal.Signals(sig).name)

    def _start_drain(self, signal_name: str) -> None:
        log.info("draining", signal=signal_name, grace_seconds=self.grace)
        self._drain_task = asyncio.ensure_future(self._drain())

    async def _drain(self) -> None:
        # The app is the Litestar app, whose state holds the services.
        found: Services = self.config.app.state.services  # type: ignore[union-attr]
        admission = found.admission
        admission.draining = True
        admission.last_refused = time.monotonic()  # at least one quiet period, traffic or not
        deadline = time.monotonic() + self.grace
        while time.monotonic() < deadline and (  # noqa: ASYNC110 - counters and a clock, no event
            admission.in_flight
            or self.busy()
            or time.monotonic() - admission.last_refused < DRAIN_QUIET_SECONDS
        ):
            await asyncio.sleep(0.05)
        if admission.in_flight:
            log.warning("drain_grace_expired", aborting=admission.in_flight)
            await found.generation.abort_all()
            # Aborted requests answer with an error; give them a moment to be written.
            settle = time.monotonic() + 5.0
            while admission.in_flight and time.monotonic() < settle:  # noqa: ASYNC110
                await asyncio.sleep(0.05)
        self.should_exit = True

    def engine_died(self) -> None:
        self.exit_code = EXIT_ENGINE_DIED
        self.should_exit = True


def run_server(
    settings: Settings,
    engine_factory: Callable[[], Engine],
    front_end: FrontEndRole | None = None,
) -> int:
    """Run the app around whatever engine `engine_factory` makes, until shutdown; as one of
    several front-end processes where `front_end` says so."""
    server: DrainingServer | None = None

    def on_engine_death() -> None:
        if server is not None:
            server.engine_died()

    def on_ready() -> None:
        # After the engine, the services and the document formats' libraries: what start-up
        # leaves behind is never walked by a full collection again.
        log.info("startup_heap_frozen", objects=freeze_startup_heap())

    role = front_end or FrontEndRole()
    app = create_app(
        settings,
        engine_factory,
        on_engine_death=on_engine_death,
        on_ready=on_ready,
        shared_capacity=role.shared_capacity,
        owns_stores=role.owns_stores,
        outer=role.outer,
    )
    config = uvicorn.Config(
        app,
        host=settings.server.host,
        port=settings.server.port,
        log_config=None,
        access_log=False,
        lifespan="on",
        # Our own drain has already waited; this only bounds uvicorn's last connection close.
        timeout_graceful_shutdown=5,
        timeout_keep_alive=30,
    )
    server = DrainingServer(config, grace=settings.limits.shutdown_grace, busy=role.busy)
    server.run(sockets=role.sockets)
    if not server.started:
        return EXIT_STARTUP_FAILED
    return server.exit_code
