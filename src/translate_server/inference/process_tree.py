"""vLLM's engine processes die with the server, however the server dies.

vLLM runs its engine core (and, on the CPU, a model worker) in child processes that it forks.
A SIGTERM shuts them down with the engine; a SIGKILL of the server (the OOM killer, a
supervisor's last resort) would leave them running as orphans that hold the weights, the KV
cache and a GPU. Linux can send a child a signal when the thread that forked it dies
(`PR_SET_PDEATHSIG`): every process forked from the main thread from here on gets SIGKILL
then, and its own children in turn. (vLLM forks unless CUDA was initialized before the engine
started; a spawned child is not covered.)
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading

_PR_SET_PDEATHSIG = 1
_forking = {"parent": 0, "from_main_thread": False}


def tie_children_to_this_process() -> bool:
    """Arm the parent-death signal in every child forked from now on; False where the
    platform has no such thing."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    os.register_at_fork(before=_note_fork, after_in_child=lambda: _arm(libc))
    return True


def _note_fork() -> None:
    _forking["parent"] = os.getpid()
    # The signal follows the forking thread, not the process: a child forked from a thread
    # that ends would be killed with it. Only the main thread lives as long as the process.
    _forking["from_main_thread"] = threading.current_thread() is threading.main_thread()


def _arm(libc: ctypes.CDLL) -> None:
    if not _forking["from_main_thread"]:
        return
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != _forking["parent"]:  # the parent died before the signal was armed
        os._exit(1)
