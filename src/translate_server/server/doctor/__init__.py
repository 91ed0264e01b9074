"""`translate-server doctor`: before a start, one line per prerequisite of `serve` (Python,
the compiler, Python's headers and libnuma the engine builds its kernels with, the engine and
the hardware it needs, memory and disk for the model, the port, the model's files), and for
each that is missing the command that installs or frees it. Exits 1 when any is missing.

Fast (well under 5 s): it never imports vLLM or torch; the checks are in `checks.py`, what
they read from the machine in `probes.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from translate_server.server.doctor.checks import CHECKS, Check
from translate_server.server.doctor.probes import Probes
from translate_server.settings import Settings

# The options of `serve` that the checks read, which `doctor` takes too.
OPTIONS = ("model", "model_cache_dir", "kv_cache_gib", "host", "port")
MARK = {"ok": "ok", "warn": "warn", "missing": "MISSING"}


def run(
    settings: Settings,
    probes: Probes | None = None,
    write: Callable[[str], None] = print,
    checks: Sequence[Check] = CHECKS,
) -> int:
    """Print every check's line; 1 if anything is missing, else 0."""
    machine = probes or Probes()
    missing = 0
    for check in checks:
        result = check(settings, machine)
        missing += result.status == "missing"
        write(f"{MARK[result.status]:<8} {result.name:<9} {result.detail}")
    return 1 if missing else 0
