"""vLLM's engine processes die with the server, however the server dies.

vLLM runs its engine core (and, on the CPU, a model worker) in child processes. A SIGTERM
shuts them down with the engine; a SIGKILL of the server (the OOM killer, a supervisor's last
resort) would leave them running as orphans that hold the weights, the KV cache and a GPU.
Linux sends a child a chosen signal when the thread that started it dies
(`PR_SET_PDEATHSIG`); every engine process is made to get SIGKILL then:

- a forked child (vLLM forks on GPUs unless CUDA is already initialized) arms it in an
  at-fork handler;
- a spawned child (vLLM always spawns on the CPU) re-imports the server's main module, the
  CLI, before anything else: the CLI calls `tie_to_parent_if_spawned()` there. Its own
  children are tied to it in turn.

Only children started from the main thread are tied: the signal follows the starting thread,
and only the main thread lives as long as the process.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading

_PR_SET_PDEATHSIG = 1
# Set by the server for the processes it starts, so that only those tie themselves to it.
_ENVIRONMENT_FLAG = "TRANSLATE_SERVER_TIE_CHILDREN"
_forking = {"parent": 0, "from_main_thread": False}


def tie_children_to_this_process() -> bool:
    """Tie every child started from now on; False where the platform has no such thing."""
    if not sys.platform.startswith("linux"):
        return False
    os.environ[_ENVIRONMENT_FLAG] = "1"
    os.register_at_fork(before=_note_fork, after_in_child=_armed_after_fork)
    return True


def tie_to_parent_if_spawned() -> None:
    """In a process the server spawned (multiprocessing's spawn), die with the parent."""
    if (
        os.environ.get(_ENVIRONMENT_FLAG)
        and "--multiprocessing-fork" in sys.orig_argv
        and sys.platform.startswith("linux")
    ):
        _arm()
        if os.getppid() == 1:  # the parent was already gone
            os._exit(1)


def _note_fork() -> None:
    _forking["parent"] = os.getpid()
    _forking["from_main_thread"] = threading.current_thread() is threading.main_thread()


def _armed_after_fork() -> None:
    if not _forking["from_main_thread"]:
        return
    _arm()
    if os.getppid() != _forking["parent"]:  # the parent died before the signal was armed
        os._exit(1)


def _arm() -> None:
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
