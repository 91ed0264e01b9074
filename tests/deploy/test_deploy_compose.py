"""docker-compose.yml follows the Compose specification and wires the stack together."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = Path(__file__).resolve().parent / "schemas" / "compose-spec.json"
_VARIABLE = re.compile(r"\$(?:(\$)|\{(\w+)(?:(:?[-?])([^}]*))?\}|(\w+))")


def interpolate(value: Any, environ: dict[str, str]) -> Any:
    """Compose's variable substitution: $VAR, ${VAR}, ${VAR:-default}, ${VAR-default}, $$."""
    if isinstance(value, dict):
        return {key: interpolate(item, environ) for key, item in value.items()}
    if isinstance(value, list):
        return [interpolate(item, environ) for item in value]
    if not isinstance(value, str):
        return value

    def substitute(match: re.Match) -> str:
        escaped, name, operator, default, bare = match.groups()
        if escaped:
            return "$"
        name = name or bare
        current = environ.get(name)
        if operator == ":-" and not current:
            return default
        if operator == "-" and current is None:
            return default
        if operator in (":?", "?") and not current:
            raise KeyError(f"{name} is required: {default}")
        return current or ""

    return _VARIABLE.sub(substitute, value)


def load_compose(environ: dict[str, str] | None = None) -> dict[str, Any]:
    return interpolate(yaml.safe_load((ROOT / "docker-compose.yml").read_text()), environ or {})


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return load_compose()


@pytest.fixture(scope="module")
def validator():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def test_interpolation() -> None:
    environ = {"SET": "x", "EMPTY": ""}
    assert (
        interpolate("${SET:-d} ${EMPTY:-d} ${EMPTY-d} ${UNSET-d} $SET $$SET", environ)
        == "x d  d x $SET"
    )


def test_compose_file_follows_the_compose_specification(compose, validator) -> None:
    errors = sorted(validator.iter_errors(compose), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)


def test_schema_catches_mistakes(compose, validator) -> None:
    broken = json.loads(json.dumps(compose))
    broken["services"]["translate-server"]["healthchek"] = {"test": ["CMD", "true"]}
    assert not validator.is_valid(broken)
    broken = json.loads(json.dumps(compose))
    broken["services"]["translate-server"]["deploy"]["resources"]["reservations"]["devices"] = [
        {"driver": "nvidia", "count": 1}
    ]  # capabilities are required
    assert not validator.is_valid(broken)


def test_each_server_variant_is_a_profile(compose) -> None:
    # A service without a profile starts with every profile: `--profile cpu` on a laptop
    # would build the GPU image too.
    services = compose["services"]
    gpu, cpu = services["translate-server"], services["translate-server-cpu"]
    assert gpu["profiles"] == ["gpu"]
    assert cpu["profiles"] == ["cpu"]
    (device,) = gpu["deploy"]["resources"]["reservations"]["devices"]
    assert device["driver"] == "nvidia" and int(device["count"]) == 1
    assert "gpu" in device["capabilities"]
    assert "deploy" not in cpu
    assert gpu["build"]["dockerfile"] == "deploy/docker/Dockerfile.gpu"
    assert cpu["build"]["dockerfile"] == "deploy/docker/Dockerfile.cpu"
    for service in (gpu, cpu):
        assert (ROOT / service["build"]["context"] / service["build"]["dockerfile"]).is_file()
        environment = service["environment"]
        assert environment["TRANSLATE_HOST"] == "0.0.0.0"
        cache = environment["TRANSLATE_MODEL_CACHE_DIR"]
        assert f"model-cache:{cache}" in service["volumes"]
        # Document jobs, glossaries and usage (the image puts them there) outlive `down`.
        assert "translate-data:/var/lib/translate-server" in service["volumes"]
        grace = float(environment["TRANSLATE_SHUTDOWN_GRACE"])
        assert float(service["stop_grace_period"].removesuffix("s")) > grace
        assert service["init"] is True


def test_configuration_is_only_known_translate_variables(compose, translate_env_names) -> None:
    for name in ("translate-server", "translate-server-cpu"):
        names = {k for k in compose["services"][name]["environment"] if k.startswith("TRANSLATE_")}
        assert names <= translate_env_names, sorted(names - translate_env_names)


def test_environment_overrides_reach_the_server() -> None:
    compose = load_compose({"TRANSLATE_MODEL": "Qwen/Qwen2.5-1.5B-Instruct"})
    assert (
        compose["services"]["translate-server"]["environment"]["TRANSLATE_MODEL"]
        == "Qwen/Qwen2.5-1.5B-Instruct"
    )
    # Unset stays empty, which the server reads as "not given".
    assert load_compose()["services"]["translate-server"]["environment"]["TRANSLATE_MODEL"] == ""


def test_prometheus_scrapes_whichever_server_variant_runs(compose) -> None:
    config = yaml.safe_load((ROOT / "deploy/prometheus/prometheus.yml").read_text())
    (job,) = [j for j in config["scrape_configs"] if j["job_name"] == "translate-server"]
    assert job.get("metrics_path", "/metrics") == "/metrics"
    # Every address of the name: one server, or each replica behind the router.
    (discovery,) = job["dns_sd_configs"]
    (host,) = discovery["names"]
    assert discovery["type"] == "A"
    port = str(discovery["port"])
    assert port == compose["services"]["translate-server"]["environment"]["TRANSLATE_PORT"]
    for variant in ("translate-server-cpu", "translate-server-replica"):
        aliases = compose["services"][variant]["networks"]["default"]["aliases"]
        assert host == "translate-server" and host in aliases
    mounts = compose["services"]["prometheus"]["volumes"]
    assert "./deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro" in mounts


def test_grafana_is_provisioned_with_the_dashboard(compose, dashboard) -> None:
    grafana = compose["services"]["grafana"]
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
    assert "prometheus" in compose["services"]
    providers = yaml.safe_load((provisioning / "dashboards" / "translate-server.yml").read_text())
    (provider,) = providers["providers"]
    assert provider["options"]["path"] == mounts["./deploy/grafana/dashboards"]
    home = grafana["environment"]["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]
    assert home == f"{provider['options']['path']}/translate-server.json"
    assert (ROOT / "deploy/grafana/dashboards/translate-server.json").is_file()
    assert dashboard["uid"] == "translate-server"


def test_third_party_images_are_pinned(compose) -> None:
    for name, service in compose["services"].items():
        image = service["image"]
        repository, _, tag = image.rpartition(":")
        assert repository and re.search(r"\d", tag) and tag != "latest", (name, image)


def test_scale_profile_runs_replicas_behind_the_router(compose, root) -> None:
    services = compose["services"]
    replica, router = services["translate-server-replica"], services["router"]
    assert replica["profiles"] == router["profiles"] == ["scale"]
    assert int(replica["deploy"]["replicas"]) == 2
    assert replica["build"]["dockerfile"] == "deploy/docker/Dockerfile.cpu"
    # Only the router is published, on the port a single server would use.
    assert "ports" not in replica
    assert router["ports"][0] == services["translate-server"]["ports"][0] == "8000:8000"
    # The router runs the repository's HAProxy configuration and finds the replicas by name.
    mounts = dict(v.rsplit(":", 1)[0].split(":", 1) for v in router["volumes"])
    assert mounts["./deploy/haproxy/haproxy.cfg"] == "/usr/local/etc/haproxy/haproxy.cfg"
    host, port = router["environment"]["REPLICAS_DNS"].split(":")
    assert host == "translate-server-replica"
    assert port == replica["environment"]["TRANSLATE_PORT"]
    assert router["image"].startswith("haproxy:")
    grace = float(replica["environment"]["TRANSLATE_SHUTDOWN_GRACE"])
    assert float(replica["stop_grace_period"].removesuffix("s")) > grace


def test_replicas_on_one_host_do_not_claim_a_core_each(compose) -> None:
    # `--cpu-placement split` pins a serving process to the last core it may use: every
    # replica on a host would take the same one. Replicas share the cores instead, and one
    # server alone keeps the default.
    replica = compose["services"]["translate-server-replica"]["environment"]
    assert replica["TRANSLATE_CPU_PLACEMENT"] == "shared"
    for name in ("translate-server", "translate-server-cpu"):
        assert "TRANSLATE_CPU_PLACEMENT" not in compose["services"][name]["environment"]
