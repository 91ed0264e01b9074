"""The HAProxy router: its configuration is valid in every mode it is run in, and the
Kubernetes kustomization that deploys it renders, validates and finds the server pods."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.support.deploy_kustomize import (
    by_kind,
    kubernetes_versions,
    kustomize_command,
    render,
    resource_id,
    selects,
)
from tests.support.prerequisites import missing_prerequisite

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "deploy" / "haproxy" / "haproxy.cfg"
K8S = ROOT / "deploy" / "k8s"


@pytest.fixture(scope="module")
def router() -> list[dict]:
    return render(K8S / "router")


@pytest.fixture(scope="module")
def servers() -> list[dict]:
    """Replicas: the overlay where several servers share their stores (without their
    database's objects)."""
    objects = render(K8S / "overlays" / "shared-database")
    return [
        o
        for o in objects
        if o["metadata"].get("labels", {}).get("app.kubernetes.io/name") != "translate-postgres"
    ]


def router_container(objects: list[dict]) -> dict:
    return by_kind(objects, "Deployment")["spec"]["template"]["spec"]["containers"][0]


def haproxy() -> str:
    binary = shutil.which("haproxy") or (
        "/usr/sbin/haproxy" if os.access("/usr/sbin/haproxy", os.X_OK) else None
    )
    if binary is None:
        missing_prerequisite("deploy", "haproxy is not installed")
    return binary


@pytest.mark.parametrize(
    "mode",
    [
        {"REPLICA_1": "127.0.0.1:8001", "REPLICA_2": "127.0.0.1:8002"},
        {"REPLICA_1": "127.0.0.1:8001", "REPLICA_2": "127.0.0.1:8002", "ROUTER_BALANCE": "pair"},
        {"REPLICAS_DNS": "localhost:8000"},
    ],
    ids=["two-replicas", "pair-affinity", "dns"],
)
def test_configuration_is_valid_without_warnings(mode: dict[str, str]) -> None:
    environ = {
        k: v
        for k, v in os.environ.items()
        if k not in ("REPLICAS_DNS", "ROUTER_BALANCE", "REPLICA_1", "REPLICA_2")
    }
    result = subprocess.run(
        [haproxy(), "-c", "-dW", "-f", str(CONFIG)],
        env={**environ, **mode},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_retries_only_refusals() -> None:
    """Only what never reached an engine is replayed: refused connections and 503s."""
    lines = [line.split("#")[0].split() for line in CONFIG.read_text().splitlines()]
    settings = {words[0]: words[1:] for words in lines if words}
    assert settings["retry-on"] == ["conn-failure", "503"]
    assert settings["retries"] == ["1"]
    assert "compression" not in settings
    errors = ROOT / "src" / "translate_server" / "errors.py"
    assert "status_code = 502" in errors.read_text()  # an engine failure is no 503


def test_kubernetes_config_map_is_the_configuration(router) -> None:
    config_map = by_kind(router, "ConfigMap")
    assert config_map["data"]["haproxy.cfg"] == CONFIG.read_text(), (
        "deploy/k8s/router/configmap.yaml differs from deploy/haproxy/haproxy.cfg"
    )
    pod = by_kind(router, "Deployment")["spec"]["template"]["spec"]
    (volume,) = [v for v in pod["volumes"] if "configMap" in v]
    assert volume["configMap"]["name"] == config_map["metadata"]["name"]
    mounts = {m["name"]: m["mountPath"] for m in router_container(router)["volumeMounts"]}
    assert mounts[volume["name"]] == "/usr/local/etc/haproxy"


def test_every_router_object_validates(router) -> None:
    kubernetes_validate = pytest.importorskip("kubernetes_validate")
    assert {o["kind"] for o in router} == {
        "ConfigMap",
        "Deployment",
        "Service",
        "PodDisruptionBudget",
    }
    for version in kubernetes_versions():
        for obj in router:
            kubernetes_validate.validate(obj, version, strict=True)


def test_router_agrees_with_kustomize(router) -> None:
    command = kustomize_command()
    if command is None:
        pytest.skip("no kustomize or kubectl binary")
    result = subprocess.run(
        [*command, str(K8S / "router")], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    theirs = {resource_id(o): o for o in yaml.safe_load_all(result.stdout) if o}
    assert {resource_id(o): o for o in router} == theirs


def test_replicas_are_found_by_dns_of_the_server_pods(router, servers) -> None:
    services = {s["metadata"]["name"]: s for s in router if s["kind"] == "Service"}
    headless = services["translate-server-replicas"]
    assert headless["spec"]["clusterIP"] == "None"
    server_pods = by_kind(servers, "Deployment")["spec"]["template"]
    assert selects(headless["spec"]["selector"], server_pods["metadata"]["labels"])
    (port,) = headless["spec"]["ports"]
    server_ports = {
        p["name"]: p["containerPort"] for p in server_pods["spec"]["containers"][0]["ports"]
    }
    assert port["targetPort"] in server_ports and port["port"] == server_ports["http"]
    env = {e["name"]: e for e in router_container(router)["env"]}
    host, dns_port = env["REPLICAS_DNS"]["value"].rsplit(":", 1)
    # HAProxy's resolver ignores search domains: a full name, in the pod's own namespace.
    assert host == "translate-server-replicas.$(POD_NAMESPACE).svc.cluster.local"
    assert env["POD_NAMESPACE"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.namespace"
    assert list(env).index("POD_NAMESPACE") < list(env).index("REPLICAS_DNS")
    assert int(dns_port) == port["port"]
    # Room for every replica the autoscaler may add.
    hpa = by_kind(servers, "HorizontalPodAutoscaler")
    assert int(env["REPLICAS_MAX"]["value"]) >= hpa["spec"]["maxReplicas"]


def test_router_service_reaches_the_router_only(router, servers) -> None:
    service = next(
        s for s in router if s["kind"] == "Service" and s["metadata"]["name"] == "translate-router"
    )
    pods = by_kind(router, "Deployment")["spec"]["template"]["metadata"]["labels"]
    assert selects(service["spec"]["selector"], pods)
    ports = {p["name"]: p["containerPort"] for p in router_container(router)["ports"]}
    # The configuration's defaults: clients on :8000, status and metrics on :8404.
    text = CONFIG.read_text()
    assert '"${ROUTER_BIND-:8000}"' in text and '"${STATS_BIND-:8404}"' in text
    assert ports == {"http": 8000, "stats": 8404}
    assert {p["targetPort"] for p in service["spec"]["ports"]} == set(ports)
    # The servers' own Service, autoscaler target and budget never pick up router pods.
    server_service = by_kind(servers, "Service")
    assert not selects(server_service["spec"]["selector"], pods)
    budget = by_kind(servers, "PodDisruptionBudget")
    assert not selects(budget["spec"]["selector"]["matchLabels"], pods)


def test_router_image_is_pinned(router) -> None:
    image = router_container(router)["image"]
    repository, _, tag = image.rpartition(":")
    assert repository == "haproxy" and tag and tag[0].isdigit()
