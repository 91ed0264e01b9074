"""One vLLM engine core shared by several front-end processes (`--api-processes N`).

The supervisor starts the engine core once (`launch_shared_core`); each front-end process
connects its own `AsyncLLM` client to it (`create_vllm_client`) and wraps it in the same
`VllmEngine` adapter a single-process server uses. This is how vLLM's own server runs
`--api-server-count N` (`vllm/entrypoints/cli/serve.py: run_multi_api_server`).

Facts about the installed vLLM 0.32 this module relies on (checked against its source):
- `EngineArgs._api_process_count` / `_api_process_rank` (-1: the supervisor) go into
  `ParallelConfig`; the engine core sizes nothing by them on a CPU (only the GPU worker and
  the multimodal cache read them).
- `vllm.v1.engine.utils.bind_engine_zmq_listeners(config, n)` binds one input (ROUTER) and
  one output (PULL) listener per front end, as plain sockets the front ends adopt.
  `launch_core_engines(config, executor_class, log_stats, addresses)` is a context manager:
  it starts the engine core (and its worker) on entering and waits for the engine's
  handshake on leaving, so the front ends are started inside it.
- `AsyncLLM.from_vllm_config(config, client_addresses={input_address, output_address,
  input_listener, output_listener}, client_count=n, client_index=i)` makes a client that
  adopts those listeners and owns no engine process; its `shutdown()` closes only its sockets.
  The engine core routes each request's outputs to the client whose `client_index` sent it,
  and its scheduler statistics to client 0 only.
- `CoreEngineProcManager.sentinels()` / `.shutdown(timeout)` watch and stop the engine core.
- Request ids are the engine core's keys across all clients: ours are random per request.
- `launch_core_engines` has started the engine core's process when it yields; a process
  inherits the CPU affinity of its parent when it starts, not later.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import structlog

from translate_server.inference.engine import cpu_placement
from translate_server.inference.engine.engine_args import engine_args_kwargs
from translate_server.inference.engine.vllm_engine import VllmEngine
from translate_server.inference.engine.vllm_environment import (
    place_on_cpus,
    prepare_vllm_environment,
)
from translate_server.settings import EngineSettings

log = structlog.get_logger(__name__)

# Seconds the engine core gets to exit cleanly once every front end has stopped.
CORE_SHUTDOWN_TIMEOUT = 20.0


@dataclass
class FrontEndLink:
    """What one front-end process needs to reach the shared engine core (picklable: the
    listeners travel to the spawned process as sockets)."""

    vllm_config: Any
    client_config: dict[str, Any]
    index: int
    count: int
    on_cpu: bool


@dataclass
class SharedCore:
    """The running engine core and the links its front ends connect through."""

    links: list[FrontEndLink]
    manager: Any = None
    _listeners: Any = field(default=None, repr=False)

    def sentinels(self) -> list[int]:
        return [] if self.manager is None else list(self.manager.sentinels())

    def close_listeners(self) -> None:
        """The supervisor's copies of the listeners, once the front ends hold theirs."""
        for link in self.links:
            for key in ("input_listener", "output_listener"):
                link.client_config[key].close()

    def shutdown(self) -> None:
        if self.manager is not None:
            self.manager.shutdown(timeout=CORE_SHUTDOWN_TIMEOUT)
            self.manager = None
        if self._listeners is not None:
            self._listeners.cleanup()
            self._listeners = None


@contextlib.contextmanager
def launch_shared_core(settings: EngineSettings, count: int) -> Iterator[SharedCore]:
    """Start the engine core for `count` front ends. Start the front ends inside the block:
    leaving it waits for the engine to be ready (the model load)."""
    from translate_server.inference.model_files import resolve_model

    on_cpu = prepare_vllm_environment()
    # `--cpu-placement split`: the engine core starts on the scheduler's cores, and the
    # supervisor moves to the front end's before it spawns the front ends, which inherit them.
    placement = place_on_cpus(settings) if on_cpu else None
    model = resolve_model(settings)
    engine_args, bind_engine_zmq_listeners, launch_core_engines, executor_of = _vllm()
    args = engine_args(**engine_args_kwargs(settings, model, on_cpu))
    args._api_process_count = count
    args._api_process_rank = -1
    config = args.create_engine_config()
    # Held by `core` alone: vLLM's import pins this frame, and a local would outlive shutdown.
    core = SharedCore([], _listeners=bind_engine_zmq_listeners(config, count))
    core.links = [
        FrontEndLink(
            vllm_config=config,
            client_config={
                "input_address": core._listeners.inputs[i].address,
                "output_address": core._listeners.outputs[i].address,
                "input_listener": core._listeners.inputs[i].socket,
                "output_listener": core._listeners.outputs[i].socket,
            },
            index=i,
            count=count,
            on_cpu=on_cpu,
        )
        for i in range(count)
    ]
    log.info("engine_core_starting", model=model, front_ends=count, dtype=args.dtype)
    try:
        with launch_core_engines(
            config, executor_of(config), not args.disable_log_stats, core._listeners.addresses
        ) as launch:
            core.manager = launch.engine_manager
            del launch
            # The engine core's process exists now, on the cores it was started with.
            if placement is not None:
                cpu_placement.after_engine_start(placement)
            yield core
    except BaseException:
        core.shutdown()
        raise


def _vllm() -> tuple[Any, Any, Any, Any]:
    """vLLM's names, imported in a frame of their own: vLLM's first import pins the frame that
    made it for the life of the process (see vllm_engine), and the caller's locals with it."""
    from vllm import AsyncEngineArgs
    from vllm.v1.engine.utils import bind_engine_zmq_listeners, launch_core_engines
    from vllm.v1.executor import Executor

    return AsyncEngineArgs, bind_engine_zmq_listeners, launch_core_engines, Executor.get_class


def create_vllm_client(settings: EngineSettings, link: FrontEndLink) -> VllmEngine:
    """A front end's `AsyncLLM`, connected to the shared engine core. Call it inside the
    running event loop that will serve requests, as `create_vllm_engine`."""
    prepare_vllm_environment()
    from vllm.v1.engine.async_llm import AsyncLLM

    # Passed straight in, never bound to a local here (see vllm_engine's docstring).
    return VllmEngine(
        AsyncLLM.from_vllm_config(
            link.vllm_config,
            disable_log_stats=not settings.engine_metrics,
            enable_log_requests=False,
            client_addresses=dict(link.client_config),
            client_count=link.count,
            client_index=link.index,
        ),
        settings.model_name,
        link.on_cpu,
    )
