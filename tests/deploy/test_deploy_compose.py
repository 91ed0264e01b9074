"""The compose files follow the Compose specification and wire the stack together: a plain
`docker compose up` runs the CPU server, Prometheus and Grafana; docker-compose.gpu.yml turns
the server into the GPU one, docker-compose.scale.yml into replicas behind HAProxy; every
TRANSLATE_* setting reaches the server."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from tests.support.compose_files import (
    GPU,
    LOCAL,
    LOCAL_SCALE,
    ROOT,
    SCALE,
    interpolate,
    merge,
    read,
    stack,
)

SCHEMA = Path(__file__).resolve().parent / "schemas" / "compose-spec.json"
SERVER = "translate-server"
# What compose sets in the container itself, whatever the shell says.
CONTAINER_OWN = {"TRANSLATE_HOST", "TRANSLATE_PORT", "TRANSLATE_MODEL_CACHE_DIR"}
FILE_SETS = {
    "plain": (),
    "gpu": (GPU,),
    "scale": (SCALE,),
    "local": (LOCAL,),
    "local scale": (SCALE, LOCAL, LOCAL_SCALE),
}


@pytest.fixture(scope="module")
def validator():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def image_environment(dockerfile: str) -> dict[str, str]:
    """The `ENV` a Dockerfile sets, by name."""
    text = (ROOT / "deploy/docker" / dockerfile).read_text().replace("\\\n", " ")
    found: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("ENV "):
            found.update(dict(re.findall(r"(\w+)=(\S+)", line)))
    return found


def test_interpolation_of_a_variable_in_a_default() -> None:
    nested = "${URL:-pg://${PASSWORD:-pw}@db}"
    assert interpolate(nested, {}) == "pg://pw@db"
    assert interpolate(nested, {"PASSWORD": "s"}) == "pg://s@db"
    assert interpolate(nested, {"URL": "mine", "PASSWORD": "s"}) == "mine"


def test_interpolation() -> None:
    environ = {"SET": "x", "EMPTY": ""}
    assert (
        interpolate("${SET:-d} ${EMPTY:-d} ${EMPTY-d} ${UNSET-d} $SET $$SET", environ)
        == "x d  d x $SET"
    )


def test_merge_follows_compose() -> None:
    base = {"a": {"ports": ["1:1"], "env": {"X": "1", "Y": "2"}, "shm_size": "2gb"}}
    over = yaml.safe_load("a: {ports: ['2:2'], env: {X: '3'}}")
    assert merge(base, over) == {
        "a": {"ports": ["1:1", "2:2"], "env": {"X": "3", "Y": "2"}, "shm_size": "2gb"}
    }
    # `!reset` removes what earlier files set: the scale file's replicas publish no port.
    scaled = merge({"services": {SERVER: base["a"]}}, read(SCALE))["services"][SERVER]
    assert "ports" not in scaled and scaled["shm_size"] == "2gb"
    assert scaled["env"] == base["a"]["env"]


@pytest.mark.parametrize("name", FILE_SETS)
def test_each_documented_file_set_follows_the_compose_specification(name, validator) -> None:
    merged = stack(*FILE_SETS[name])
    errors = sorted(validator.iter_errors(merged), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)


def test_schema_catches_mistakes(validator) -> None:
    broken = json.loads(json.dumps(stack(GPU)))
    broken["services"][SERVER]["healthchek"] = {"test": ["CMD", "true"]}
    assert not validator.is_valid(broken)
    broken = json.loads(json.dumps(stack(GPU)))
    broken["services"][SERVER]["deploy"]["resources"]["reservations"]["devices"] = [
        {"driver": "nvidia", "count": 1}
    ]  # capabilities are required
    assert not validator.is_valid(broken)


def test_a_plain_up_runs_the_cpu_server_prometheus_and_grafana() -> None:
    services = stack()["services"]
    # A service without profiles starts with a plain `up`; only Jaeger waits to be asked for.
    started = {name for name, service in services.items() if not service.get("profiles")}
    assert started == {SERVER, "prometheus", "grafana"}
    assert services["jaeger"]["profiles"] == ["tracing"]
    server = services[SERVER]
    assert server["build"]["dockerfile"] == "deploy/docker/Dockerfile.cpu"
    assert (ROOT / server["build"]["context"] / server["build"]["dockerfile"]).is_file()
    assert server["image"].endswith("-cpu")
    assert server["ports"] == ["127.0.0.1:8000:8000"]
    assert "deploy" not in server and "ipc" not in server
    environment = server["environment"]
    assert environment["TRANSLATE_HOST"] == "0.0.0.0"
    assert f"model-cache:{environment['TRANSLATE_MODEL_CACHE_DIR']}" in server["volumes"]
    # Document jobs, glossaries, usage and memories (their paths below) outlive `down`.
    assert "translate-data:/var/lib/translate-server" in server["volumes"]
    for name in ("TRANSLATE_DOCUMENT_DIR", "TRANSLATE_GLOSSARY_DB", "TRANSLATE_MEMORY_DB"):
        assert environment[name].startswith("/var/lib/translate-server/"), name
    grace = float(environment["TRANSLATE_SHUTDOWN_GRACE"])
    assert float(server["stop_grace_period"].removesuffix("s")) > grace
    assert server["init"] is True


def test_every_setting_reaches_the_server(translate_env_names) -> None:
    environment = read("docker-compose.yml")["x-translate-environment"]
    named = {name for name in environment if name.startswith("TRANSLATE_")}
    missing = translate_env_names - named
    assert not missing, (
        f"add {sorted(missing)} to x-translate-environment in docker-compose.yml "
        "(`NAME:` with no value passes it through from the shell or .env)"
    )
    assert named <= translate_env_names, sorted(named - translate_env_names)
    # The rest pass through as they are: no value, or the variable itself with a default.
    for name in named - CONTAINER_OWN:
        value = environment[name]
        assert value is None or value.startswith(f"${{{name}:-"), (name, value)


def test_every_other_variable_the_settings_name_reaches_the_server() -> None:
    """The settings' help names variables of the libraries beside the server's own
    (`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, `VLLM_CPU_OMP_THREADS_BIND`): set in the shell or
    .env, they must reach the container too."""
    settings = pytest.importorskip("translate_server.settings")
    table = settings.configuration_table()
    others = set(re.findall(r"`([A-Z][A-Z0-9]*_[A-Z0-9_]+)(?:=[^`]*)?`", table))
    others = {name for name in others if not name.startswith("TRANSLATE_")}
    assert "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL" in others
    environment = read("docker-compose.yml")["x-translate-environment"]
    missing = others - set(environment)
    assert not missing, f"pass {sorted(missing)} through x-translate-environment (`NAME:`)"
    for name in others:
        assert environment[name] is None, (name, environment[name])


def test_a_setting_in_the_shell_or_dotenv_reaches_the_server() -> None:
    given = {"TRANSLATE_ADMIN_KEY": "secret", "TRANSLATE_SHUTDOWN_GRACE": "20"}
    environment = stack(environ=given)["services"][SERVER]["environment"]
    assert environment["TRANSLATE_SHUTDOWN_GRACE"] == "20"
    # No value: compose takes it from the shell or .env, and leaves it unset where neither
    # has it (the server's default), which `docker compose config` shows for real in the
    # docker tier.
    assert "TRANSLATE_ADMIN_KEY" in environment and environment["TRANSLATE_ADMIN_KEY"] is None
    assert stack()["services"][SERVER]["environment"]["TRANSLATE_SHUTDOWN_GRACE"] == "30"


@pytest.mark.parametrize("dockerfile", ["Dockerfile.cpu", "Dockerfile.gpu"])
def test_the_images_settings_survive_compose(dockerfile: str) -> None:
    """An entry without a value unsets the variable in the container, the image's own too:
    every TRANSLATE_* the image sets must have a value in compose, the image's."""
    files = (GPU,) if dockerfile.endswith("gpu") else ()
    environment = stack(*files)["services"][SERVER]["environment"]
    for name, value in image_environment(dockerfile).items():
        if name.startswith("TRANSLATE_") and name != "TRANSLATE_LOG_FORMAT":
            assert environment[name] == value, (name, environment[name], value)
    assert environment["TRANSLATE_LOG_FORMAT"] == "json"


def test_the_gpu_file_turns_the_server_into_the_gpu_one() -> None:
    server = stack(GPU)["services"][SERVER]
    assert server["build"]["dockerfile"] == "deploy/docker/Dockerfile.gpu"
    assert (ROOT / server["build"]["context"] / server["build"]["dockerfile"]).is_file()
    assert server["image"].endswith("-gpu")
    (device,) = server["deploy"]["resources"]["reservations"]["devices"]
    assert device["driver"] == "nvidia" and int(device["count"]) == 1
    assert "gpu" in device["capabilities"]
    assert (
        int(
            stack(GPU, environ={"TRANSLATE_GPUS": "2"})["services"][SERVER]["deploy"]["resources"][
                "reservations"
            ]["devices"][0]["count"]
        )
        == 2
    )
    # The host's shared memory, and nothing of the CPU engine's.
    assert server["ipc"] == "host" and "shm_size" not in server
    assert "VLLM_CPU_KVCACHE_SPACE" not in server["environment"]
    assert server["ports"] == ["127.0.0.1:8000:8000"]
    assert server["environment"] == {
        k: v
        for k, v in stack()["services"][SERVER]["environment"].items()
        if k != "VLLM_CPU_KVCACHE_SPACE"
    }


def test_prometheus_scrapes_whichever_server_runs() -> None:
    config = yaml.safe_load((ROOT / "deploy/prometheus/prometheus.yml").read_text())
    (job,) = [j for j in config["scrape_configs"] if j["job_name"] == SERVER]
    assert job.get("metrics_path", "/metrics") == "/metrics"
    # Every address of the service's name: one server, or each replica behind the router.
    (discovery,) = job["dns_sd_configs"]
    (host,) = discovery["names"]
    assert discovery["type"] == "A" and host == SERVER
    for files in ((), (SCALE,)):
        services = stack(*files)["services"]
        assert str(discovery["port"]) == services[SERVER]["environment"]["TRANSLATE_PORT"]
        mounts = services["prometheus"]["volumes"]
        assert "./deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro" in mounts


def test_grafana_is_provisioned_with_the_dashboard(dashboard) -> None:
    grafana = stack()["services"]["grafana"]
    mounts = dict(
        v.rsplit(":", 1)[0].split(":", 1) for v in grafana["volumes"] if v.startswith("./")
    )
    provisioning = ROOT / mounts["./deploy/grafana/provisioning"].replace(
        "/etc/grafana/provisioning", "deploy/grafana/provisioning"
    )
    assert mounts["./deploy/grafana/provisioning"] == "/etc/grafana/provisioning"
    datasources = yaml.safe_load((provisioning / "datasources" / "prometheus.yml").read_text())
    (source,) = datasources["datasources"]
    assert source["type"] == "prometheus" and source["url"] == "http://prometheus:9090"
    providers = yaml.safe_load((provisioning / "dashboards" / "translate-server.yml").read_text())
    (provider,) = providers["providers"]
    assert provider["options"]["path"] == mounts["./deploy/grafana/dashboards"]
    home = grafana["environment"]["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]
    assert home == f"{provider['options']['path']}/translate-server.json"
    assert (ROOT / "deploy/grafana/dashboards/translate-server.json").is_file()
    assert dashboard["uid"] == "translate-server"


@pytest.mark.parametrize("name", FILE_SETS)
def test_every_port_is_published_on_this_machine_only_unless_asked(name: str) -> None:
    """No port on every interface by default (the API has no key, Grafana and Prometheus
    none either); TRANSLATE_PUBLISH_HOST publishes each one where it says."""
    files = FILE_SETS[name]
    for environ, host in (({}, "127.0.0.1"), ({"TRANSLATE_PUBLISH_HOST": "0.0.0.0"}, "0.0.0.0")):
        services = stack(*files, environ=environ)["services"]
        published = [port for service in services.values() for port in service.get("ports", [])]
        assert published, name
        for port in published:
            assert port.split(":")[0] == host and port.count(":") == 2, (name, port)


def test_grafana_has_no_default_admin_password(tmp_path) -> None:
    """Anonymous viewers read the dashboards; the admin's password is GRAFANA_ADMIN_PASSWORD or
    one generated at the first start (deploy/grafana/start.sh), never admin/admin."""
    grafana = stack()["services"]["grafana"]
    environment = grafana["environment"]
    assert environment["GF_AUTH_ANONYMOUS_ENABLED"] == "true"
    assert environment["GF_AUTH_ANONYMOUS_ORG_ROLE"] == "Viewer"
    assert "GF_SECURITY_ADMIN_PASSWORD" not in environment
    password_file = environment["GF_SECURITY_ADMIN_PASSWORD__FILE"]
    assert "grafana-data:/var/lib/grafana" in grafana["volumes"]
    assert password_file.startswith("/var/lib/grafana/")
    script, mounted = grafana["entrypoint"][1], "./deploy/grafana/start.sh"
    assert f"{mounted}:{script}:ro" in grafana["volumes"]
    assert grafana["entrypoint"][2] == "/run.sh"  # the image's own entrypoint, run after it

    def start(**environ: str) -> tuple[str, str]:
        done = subprocess.run(
            ["sh", str(ROOT / mounted), "true"],
            env={"PATH": "/usr/bin:/bin", "GF_PATHS_DATA": str(tmp_path), **environ},
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout, (tmp_path / Path(password_file).name).read_text()

    printed, generated = start()
    assert len(generated) >= 20 and generated != "admin" and generated in printed
    assert start() == ("", generated)  # kept, and printed only when made
    (tmp_path / Path(password_file).name).unlink()
    assert start(GRAFANA_ADMIN_PASSWORD="from-dotenv") == ("", "from-dotenv")
    assert (
        stack(environ={"GRAFANA_ADMIN_PASSWORD": "x"})["services"]["grafana"]["environment"][
            "GRAFANA_ADMIN_PASSWORD"
        ]
        == "x"
    )


@pytest.mark.parametrize("name", FILE_SETS)
def test_third_party_images_are_pinned(name: str) -> None:
    for service_name, service in stack(*FILE_SETS[name])["services"].items():
        image = service["image"]
        repository, _, tag = image.rpartition(":")
        assert repository and re.search(r"\d", tag) and tag != "latest", (service_name, image)


def test_the_scale_file_runs_replicas_behind_the_router() -> None:
    services = stack(SCALE)["services"]
    replica, router = services[SERVER], services["router"]
    assert int(replica["deploy"]["replicas"]) == 2
    assert replica["build"]["dockerfile"] == "deploy/docker/Dockerfile.cpu"
    # Only the router is published, on the port a single server would use.
    assert "ports" not in replica
    assert router["ports"][0] == stack()["services"][SERVER]["ports"][0] == "127.0.0.1:8000:8000"
    # The router runs the repository's HAProxy configuration and finds the replicas by name.
    mounts = dict(v.rsplit(":", 1)[0].split(":", 1) for v in router["volumes"])
    assert mounts["./deploy/haproxy/haproxy.cfg"] == "/usr/local/etc/haproxy/haproxy.cfg"
    host, port = router["environment"]["REPLICAS_DNS"].split(":")
    assert host == SERVER
    assert port == replica["environment"]["TRANSLATE_PORT"]
    assert router["image"].startswith("haproxy:")
    grace = float(replica["environment"]["TRANSLATE_SHUTDOWN_GRACE"])
    assert float(replica["stop_grace_period"].removesuffix("s")) > grace


def test_the_scale_file_keeps_every_store_in_one_postgresql() -> None:
    services = stack(SCALE)["services"]
    replica, database = services[SERVER], services["postgres"]
    url = urlsplit(replica["environment"]["TRANSLATE_DATABASE_URL"])
    # The replicas reach the stack's database by its service name, with its own credentials.
    assert url.scheme == "postgresql" and url.hostname == "postgres" and url.port == 5432
    variables = database["environment"]
    assert (url.username, url.password, url.path) == (
        variables["POSTGRES_USER"],
        variables["POSTGRES_PASSWORD"],
        "/" + variables["POSTGRES_DB"],
    )
    # They start once it answers, and its data outlives `down` on a volume of its own.
    assert replica["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert "pg_isready" in database["healthcheck"]["test"]
    (volume,) = database["volumes"]
    name, mount = volume.split(":")[:2]
    assert mount == "/var/lib/postgresql/data" and name in stack(SCALE)["volumes"]
    assert "ports" not in database
    assert database["image"].startswith("postgres:")


def test_a_database_url_of_your_own_replaces_the_stack_s() -> None:
    own = "postgresql://team:pw@db.example.com:5432/translations"
    replica = stack(SCALE, environ={"TRANSLATE_DATABASE_URL": own})["services"][SERVER]
    assert replica["environment"]["TRANSLATE_DATABASE_URL"] == own
    password = stack(SCALE, environ={"TRANSLATE_POSTGRES_PASSWORD": "s3cret"})["services"]
    assert ":s3cret@postgres:" in password[SERVER]["environment"]["TRANSLATE_DATABASE_URL"]
    assert password["postgres"]["environment"]["POSTGRES_PASSWORD"] == "s3cret"


def test_replicas_on_one_host_do_not_claim_a_core_each() -> None:
    # `--cpu-placement split` pins a serving process to the last core it may use: every
    # replica on a host would take the same one. Replicas share the cores instead, and one
    # server alone keeps the default.
    replica = stack(SCALE)["services"][SERVER]["environment"]
    assert replica["TRANSLATE_CPU_PLACEMENT"] == "shared"
    assert replica["VLLM_CPU_OMP_THREADS_BIND"] == "nobind"
    assert stack()["services"][SERVER]["environment"]["TRANSLATE_CPU_PLACEMENT"] is None


def test_the_local_images_stand_in_for_docker_hub() -> None:
    services: dict[str, Any] = stack(SCALE, LOCAL, LOCAL_SCALE)["services"]
    assert services[SERVER]["build"]["args"]["PYTHON_IMAGE"].startswith("translate-server-local/")
    assert services[SERVER]["build"]["dockerfile"] == "deploy/docker/Dockerfile.cpu"
    assert services["prometheus"]["image"].startswith("translate-server-local/")
    assert services["router"]["image"].startswith("translate-server-local/")
    assert services["postgres"]["image"].startswith("translate-server-local/")
    # Debian packages no Grafana: it waits for its profile.
    assert services["grafana"]["profiles"] == ["grafana"]
