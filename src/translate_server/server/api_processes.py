"""`--api-processes N`: N HTTP front-end processes over one engine core, as vLLM's own
`--api-server-count` runs them.

The supervisor (this process) binds the HTTP socket, starts the engine core
(`vllm_shared_core`) and spawns the front ends, each of which serves the whole app on that
socket through its own `AsyncLLM` client; the kernel hands each new connection to one of
them. It serves nothing itself: it forwards SIGTERM/SIGINT to every front end (each drains
as a single-process server does), waits for them, then stops the engine core. A front end
that exits on its own, or an engine core that dies, stops the whole server with a non-zero
status, so that whatever supervises it restarts it whole.

Shared between the front ends: the admission count (`SharedCapacity`), the metrics (files in
a `PROMETHEUS_MULTIPROC_DIR` that any front end's /metrics sums). Owned by front end 0 alone:
the SQLite stores and the document runner; the others forward the requests that need them
over a Unix socket (`owner_forwarding`).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import shutil
import signal
import socket
import tempfile
import time
from multiprocessing.connection import wait
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import FrameType

import structlog

from translate_server.observability.metrics import MULTIPROCESS_DIR
from translate_server.server.process_tree import tie_children_to_this_process
from translate_server.settings import Settings

log = structlog.get_logger(__name__)

EXIT_ENGINE_DIED = 1
EXIT_STARTUP_FAILED = 3
# Seconds a front end may take to exit after its drain (the grace) before it is killed.
EXIT_MARGIN_SECONDS = 30.0


class Supervisor:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.count = settings.server.api_processes
        self.front_ends: list[BaseProcess] = []
        self.signals = 0  # SIGTERM/SIGINT received
        self._workdir = Path(tempfile.mkdtemp(prefix="translate-server-"))

    def handle_signal(self, sig: int, frame: FrameType | None) -> None:
        # Nothing but counting and forwarding: no logging inside a signal handler.
        self.signals += 1
        for process in self.front_ends:
            if process.pid is not None and process.exitcode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGTERM)

    def run(self) -> int:
        from translate_server.inference.engine.vllm_shared_core import launch_shared_core
        from translate_server.inference.shared_admission import SharedCapacity

        tie_children_to_this_process()
        metrics_dir = self._workdir / "metrics"
        metrics_dir.mkdir()
        # Read by prometheus_client as each front end imports it.
        os.environ[MULTIPROCESS_DIR] = str(metrics_dir)
        context = multiprocessing.get_context("spawn")
        http = _listen_tcp(self.settings.server.host, self.settings.server.port)
        owner_path = str(self._workdir / "owner.sock")
        owner = _listen_unix(owner_path)
        shared = SharedCapacity(context)
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self.handle_signal)
        try:
            with launch_shared_core(self.settings.engine, self.count) as core:
                for link in core.links:
                    self._spawn(
                        context,
                        link,
                        [http, owner] if link.index == 0 else [http],
                        shared,
                        None if link.index == 0 else owner_path,
                    )
                core.close_listeners()
        except Exception:
            log.exception("engine_core_failed_to_start")
            self._stop_front_ends(at_once=True)
            return EXIT_STARTUP_FAILED
        finally:
            http.close()  # the front ends hold their own copies
            owner.close()
        log.info("front_ends_started", count=self.count, engine_core=True)
        try:
            return self._watch(core.sentinels())
        finally:
            core.shutdown()
            shutil.rmtree(self._workdir, ignore_errors=True)
            log.info("supervisor_stopped")

    def _spawn(
        self,
        context: multiprocessing.context.SpawnContext,
        link: object,
        sockets: list[socket.socket],
        shared: object,
        owner_path: str | None,
    ) -> None:
        from translate_server.server.front_end import front_end_main

        index = len(self.front_ends)
        process = context.Process(
            target=front_end_main,
            args=(self.settings, link, sockets, shared, owner_path),
            name=f"front-end-{index}",
        )
        process.start()
        self.front_ends.append(process)

    def _watch(self, engine_sentinels: list[int]) -> int:
        """Until every front end has exited; the server's exit status."""
        by_sentinel: dict[int, BaseProcess] = {p.sentinel: p for p in self.front_ends}
        stopping_since: float | None = None
        failure: int | None = None
        while any(p.exitcode is None for p in self.front_ends):
            ready = wait([*by_sentinel, *engine_sentinels], timeout=0.5)
            if self.signals and stopping_since is None:
                stopping_since = time.monotonic()
                log.info("draining_front_ends", grace_seconds=self.settings.limits.shutdown_grace)
            for sentinel in ready:
                if sentinel in engine_sentinels:
                    engine_sentinels = []
                    if failure is None:
                        log.error("engine_died")
                        failure = EXIT_ENGINE_DIED
                        self._stop_front_ends(at_once=True)
                    continue
                process = by_sentinel.pop(sentinel)  # type: ignore[arg-type]
                process.join()
                self._forget_metrics(process)
                log.info("front_end_exited", name=process.name, exit_code=process.exitcode)
                if stopping_since is None and failure is None:
                    # A front end that stops unasked stops the server: one restart, whole.
                    failure = process.exitcode or EXIT_ENGINE_DIED
                    self._stop_front_ends(at_once=True)
            limit = self.settings.limits.shutdown_grace + EXIT_MARGIN_SECONDS
            if stopping_since is not None and time.monotonic() - stopping_since > limit:
                log.error("front_ends_did_not_exit")
                self._kill_front_ends()
        if failure is not None:
            return failure
        # SIGTERM stops a front end still starting before it can drain: nothing to lose.
        failed = (p.exitcode for p in self.front_ends if p.exitcode not in (0, -signal.SIGTERM))
        return next(failed, 0) or 0

    def _stop_front_ends(self, *, at_once: bool) -> None:
        """SIGTERM drains a front end; a second one makes it exit at once."""
        for _ in range(2 if at_once else 1):
            self.handle_signal(signal.SIGTERM, None)
            self.signals -= 1  # not a signal from outside
            time.sleep(0.1)
        deadline = time.monotonic() + 10.0
        for process in self.front_ends:
            process.join(timeout=max(0.0, deadline - time.monotonic()))
        self._kill_front_ends()

    def _kill_front_ends(self) -> None:
        for process in self.front_ends:
            if process.exitcode is None:
                process.kill()
                process.join(timeout=5)

    def _forget_metrics(self, process: BaseProcess) -> None:
        # Its `live*` gauges leave the sums; its counters stay in them.
        from prometheus_client import multiprocess

        if process.pid is not None:
            multiprocess.mark_process_dead(process.pid, os.environ[MULTIPROCESS_DIR])  # type: ignore[no-untyped-call]


def _listen_tcp(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def _listen_unix(path: str) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(path)
    sock.listen(2048)
    return sock


def supervise(settings: Settings) -> int:
    """Serve with `settings.server.api_processes` front ends; the process exit code."""
    return Supervisor(settings).run()
