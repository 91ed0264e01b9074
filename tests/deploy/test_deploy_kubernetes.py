"""The Kustomize overlays render, validate against Kubernetes' schemas, and hang together."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.support.deploy_kustomize import (
    OLDEST_KUBERNETES,
    PatchError,
    Unsupported,
    by_kind,
    json_patch,
    kubernetes_versions,
    kustomize_command,
    render,
    render_with_components,
    resource_id,
    selects,
)

K8S = Path(__file__).resolve().parents[2] / "deploy" / "k8s"
# Each overlay: its engine variant, and where its stores live.
OVERLAYS = {"gpu": "gpu", "cpu": "cpu", "shared-database": "gpu"}
ONE_SERVER = ["gpu", "cpu"]
# Custom resources: no schema in Kubernetes' own; checked by the consistency tests below.
CUSTOM_KINDS = {"ServiceMonitor"}
DATABASE = "translate-postgres"
SERVICE_MONITOR = K8S / "components" / "servicemonitor"


def is_database(obj: dict) -> bool:
    return obj["metadata"].get("labels", {}).get("app.kubernetes.io/name") == DATABASE


@pytest.fixture(scope="module", params=list(OVERLAYS))
def everything(request) -> tuple[str, list[dict]]:
    return request.param, render(K8S / "overlays" / request.param)


@pytest.fixture(scope="module", params=list(OVERLAYS))
def monitored(request) -> tuple[str, list[dict]]:
    """An overlay with the optional ServiceMonitor component added, as deploy/README.md says."""
    return request.param, render_with_components(K8S / "overlays" / request.param, SERVICE_MONITOR)


@pytest.fixture(scope="module")
def overlay(everything) -> tuple[str, list[dict]]:
    """The server's own objects (not its database's)."""
    name, objects = everything
    return name, [obj for obj in objects if not is_database(obj)]


def container(objects: list[dict]) -> dict:
    return by_kind(objects, "Deployment")["spec"]["template"]["spec"]["containers"][0]


def env(objects: list[dict]) -> dict[str, str]:
    return {e["name"]: e.get("value") for e in container(objects)["env"]}


# --- the renderer itself --------------------------------------------------------------


def test_json_patch_follows_rfc6902() -> None:
    doc = {"a": {"b": [1, 2]}}
    assert json_patch(doc, [{"op": "add", "path": "/a/b/-", "value": 3}]) == {"a": {"b": [1, 2, 3]}}
    assert json_patch(doc, [{"op": "add", "path": "/a/b/0", "value": 0}]) == {"a": {"b": [0, 1, 2]}}
    assert json_patch(doc, [{"op": "replace", "path": "/a/b/1", "value": 9}]) == {
        "a": {"b": [1, 9]}
    }
    assert json_patch(doc, [{"op": "remove", "path": "/a"}]) == {}
    assert doc == {"a": {"b": [1, 2]}}
    with pytest.raises(PatchError):
        json_patch(doc, [{"op": "add", "path": "/x/y", "value": 1}])
    with pytest.raises(PatchError):
        json_patch(doc, [{"op": "replace", "path": "/a/c", "value": 1}])
    with pytest.raises(PatchError):
        json_patch(doc, [{"op": "test", "path": "/a/b/0", "value": 5}])


def test_renderer_refuses_what_it_does_not_implement(tmp_path: Path) -> None:
    (tmp_path / "kustomization.yaml").write_text("namePrefix: x-\nresources: []\n")
    with pytest.raises(Unsupported):
        render(tmp_path)


@pytest.mark.parametrize("name", OVERLAYS)
def test_renderer_agrees_with_kustomize(name: str) -> None:
    command = kustomize_command()
    if command is None:
        pytest.skip("no kustomize or kubectl binary")
    result = subprocess.run(
        [*command, str(K8S / "overlays" / name)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if result.returncode != 0 and "unknown command" in result.stderr:
        pytest.skip(f"{command[0]} cannot render kustomizations")
    assert result.returncode == 0, result.stderr
    theirs = {resource_id(o): o for o in yaml.safe_load_all(result.stdout) if o}
    ours = {resource_id(o): o for o in render(K8S / "overlays" / name)}
    assert ours == theirs


# --- schemas ---------------------------------------------------------------------------


def test_every_object_validates_against_kubernetes_schemas(monitored) -> None:
    kubernetes_validate = pytest.importorskip("kubernetes_validate")
    _, objects = monitored
    kinds = {obj["kind"] for obj in objects}
    assert {"Deployment", "Service", "PodDisruptionBudget", "ServiceMonitor"} <= kinds
    for version in kubernetes_versions():
        for obj in objects:
            if obj["kind"] in CUSTOM_KINDS:
                continue
            # strict: unknown fields (typos) are errors, as `kubectl apply` reports them.
            kubernetes_validate.validate(obj, version, strict=True)


def test_schema_validation_catches_mistakes(overlay) -> None:
    kubernetes_validate = pytest.importorskip("kubernetes_validate")
    _, objects = overlay
    deployment = by_kind(objects, "Deployment")
    broken = json_patch(
        deployment,
        [
            {
                "op": "add",
                "path": "/spec/template/spec/containers/0/readinessProbe/httpPath",
                "value": "/health",
            }
        ],
    )
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, OLDEST_KUBERNETES, strict=True)
    broken = json_patch(
        deployment,
        [
            {
                "op": "replace",
                "path": "/spec/template/spec/containers/0/ports/0/containerPort",
                "value": "http",
            }
        ],
    )
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, OLDEST_KUBERNETES, strict=True)


# --- the objects hang together ---------------------------------------------------------


def test_selectors_find_the_pods(overlay) -> None:
    _, objects = overlay
    deployment = by_kind(objects, "Deployment")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert selects(deployment["spec"]["selector"]["matchLabels"], pod_labels)
    assert selects(by_kind(objects, "Service")["spec"]["selector"], pod_labels)
    assert selects(
        by_kind(objects, "PodDisruptionBudget")["spec"]["selector"]["matchLabels"], pod_labels
    )


def test_service_and_probes_use_the_server_port(overlay) -> None:
    _, objects = overlay
    main = container(objects)
    ports = {p["name"]: p["containerPort"] for p in main["ports"]}
    assert ports == {"http": int(env(objects)["TRANSLATE_PORT"])} == {"http": 8000}
    service_ports = by_kind(objects, "Service")["spec"]["ports"]
    assert [p["targetPort"] for p in service_ports] == ["http"]
    assert main["readinessProbe"]["httpGet"] == {"path": "/health", "port": "http"}
    assert main["livenessProbe"]["httpGet"] == {"path": "/health/live", "port": "http"}
    assert main["startupProbe"]["httpGet"]["path"] == "/health/live"
    # The startup probe must allow minutes for a model download and engine start.
    startup = main["startupProbe"]
    assert startup["periodSeconds"] * startup["failureThreshold"] >= 600


def test_termination_grace_covers_the_shutdown_grace(overlay) -> None:
    _, objects = overlay
    pod = by_kind(objects, "Deployment")["spec"]["template"]["spec"]
    grace = float(env(objects)["TRANSLATE_SHUTDOWN_GRACE"])
    pre_stop = container(objects)["lifecycle"]["preStop"]["exec"]["command"]
    assert pre_stop[0] == "sleep"
    budget = float(pre_stop[1]) + grace
    # Enough for the drain and the engine's own shutdown, not so much that a hung pod lingers.
    assert budget + 5 <= pod["terminationGracePeriodSeconds"] <= budget + 30


def test_server_listens_on_all_interfaces_and_keeps_its_cache(overlay) -> None:
    _, objects = overlay
    variables = env(objects)
    assert variables["TRANSLATE_HOST"] == "0.0.0.0"
    mounts = {m["name"]: m["mountPath"] for m in container(objects)["volumeMounts"]}
    assert mounts["model-cache"] == variables["TRANSLATE_MODEL_CACHE_DIR"]
    assert variables["HF_HOME"].startswith(variables["TRANSLATE_MODEL_CACHE_DIR"] + "/")
    volumes = {
        v["name"] for v in by_kind(objects, "Deployment")["spec"]["template"]["spec"]["volumes"]
    }
    assert {"model-cache", "dshm"} <= volumes


def test_configuration_is_only_known_translate_variables(overlay, translate_env_names) -> None:
    _, objects = overlay
    names = {e["name"] for e in container(objects)["env"] if e["name"].startswith("TRANSLATE_")}
    assert names <= translate_env_names, sorted(names - translate_env_names)


def test_pods_run_unprivileged(overlay, root: Path) -> None:
    _, objects = overlay
    pod = by_kind(objects, "Deployment")["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    uid = pod["securityContext"]["runAsUser"]
    assert uid != 0
    # The same user the images create, so the cache volume stays writable.
    for dockerfile in (root / "deploy" / "docker").glob("Dockerfile.*"):
        assert f"ARG APP_UID={uid}" in dockerfile.read_text(), dockerfile.name
    assert container(objects)["securityContext"]["allowPrivilegeEscalation"] is False


def test_image_is_pinned_per_variant(overlay) -> None:
    name, objects = overlay
    image = container(objects)["image"]
    repository, _, tag = image.rpartition(":")
    assert repository and tag and tag != "latest"
    assert tag.endswith(f"-{OVERLAYS[name]}")


def test_gpu_resources_match_tensor_parallelism(overlay) -> None:
    name, objects = overlay
    resources = container(objects)["resources"]
    gpus = resources.get("limits", {}).get("nvidia.com/gpu")
    if OVERLAYS[name] == "gpu":
        assert gpus is not None
        assert int(gpus) == int(env(objects)["TRANSLATE_TENSOR_PARALLEL_SIZE"])
        assert resources["requests"]["nvidia.com/gpu"] == gpus
    else:
        assert gpus is None and "TRANSLATE_TENSOR_PARALLEL_SIZE" not in env(objects)
    assert "memory" in resources["limits"]


def test_autoscaler_scales_the_deployment_on_requests_waiting(overlay, root: Path) -> None:
    name, objects = overlay
    if name in ONE_SERVER:
        # Pods that each keep their own stores must not be added by an autoscaler.
        assert not [obj for obj in objects if obj["kind"] == "HorizontalPodAutoscaler"]
        return
    hpa = by_kind(objects, "HorizontalPodAutoscaler")
    target = hpa["spec"]["scaleTargetRef"]
    deployment = by_kind(objects, "Deployment")
    assert (target["kind"], target["name"]) == ("Deployment", deployment["metadata"]["name"])
    assert 1 <= hpa["spec"]["minReplicas"] < hpa["spec"]["maxReplicas"]
    (metric,) = hpa["spec"]["metrics"]
    assert metric["type"] == "Pods"
    metric_name = metric["pods"]["metric"]["name"]
    # prometheus-adapter must serve that name, from a series the service exports.
    values = yaml.safe_load((root / "deploy/k8s/prometheus-adapter/values.yaml").read_text())
    rules = {rule["name"]["as"]: rule for rule in values["rules"]["custom"]}
    assert metric_name in rules
    series = re.match(r"[A-Za-z_:][\w:]*", rules[metric_name]["seriesQuery"]).group()
    assert series in {"translate_requests_waiting", "vllm:num_requests_waiting"}
    assert re.fullmatch(rules[metric_name]["name"]["matches"], series)


def test_an_overlay_applies_without_the_prometheus_operator(everything) -> None:
    """Only Kubernetes' own kinds: a cluster without the operator's CRDs takes `apply -k`."""
    _, objects = everything
    assert not {obj["kind"] for obj in objects} & CUSTOM_KINDS
    assert all("coreos.com" not in obj["apiVersion"] for obj in objects)


def test_the_service_monitor_selects_the_server_service_only(monitored) -> None:
    """Beside the router (deploy/k8s/router), whose headless Service reaches the same pods,
    the ServiceMonitor still selects one Service: each pod is scraped once, and the HPA's
    per-pod queue metric is not doubled."""
    _, objects = monitored
    monitor = by_kind(objects, "ServiceMonitor")
    services = [o for o in [*objects, *render(K8S / "router")] if o["kind"] == "Service"]
    assert "translate-server-replicas" in {s["metadata"]["name"] for s in services}
    selected = [
        s["metadata"]["name"]
        for s in services
        if selects(monitor["spec"]["selector"]["matchLabels"], s["metadata"].get("labels", {}))
    ]
    assert selected == ["translate-server"]


def test_service_monitor_scrapes_the_service_metrics(monitored) -> None:
    objects = [obj for obj in monitored[1] if not is_database(obj)]
    monitor = by_kind(objects, "ServiceMonitor")
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    service = by_kind(objects, "Service")
    assert selects(monitor["spec"]["selector"]["matchLabels"], service["metadata"]["labels"])
    port_names = {p["name"] for p in service["spec"]["ports"]}
    for endpoint in monitor["spec"]["endpoints"]:
        assert endpoint["port"] in port_names
        assert endpoint["path"] == "/metrics"
        assert set(endpoint) <= {
            "port",
            "path",
            "interval",
            "scrapeTimeout",
            "scheme",
            "honorLabels",
            "relabelings",
            "metricRelabelings",
            "authorization",
            "bearerTokenSecret",
            "tlsConfig",
        }


def test_disruption_budget_never_blocks_a_drain(overlay) -> None:
    _, objects = overlay
    pdb = by_kind(objects, "PodDisruptionBudget")["spec"]
    assert pdb.get("maxUnavailable") == 1 and "minAvailable" not in pdb


# --- where the stores live -------------------------------------------------------------


STORE_VARIABLES = {"TRANSLATE_MEMORY_DB", "TRANSLATE_GLOSSARY_DB", "TRANSLATE_DOCUMENT_DIR"}


@pytest.mark.parametrize("name", ONE_SERVER)
def test_one_server_keeps_its_stores_on_a_volume_that_outlives_the_pod(name: str) -> None:
    objects = render(K8S / "overlays" / name)
    deployment = by_kind(objects, "Deployment")
    claim = by_kind(objects, "PersistentVolumeClaim")
    volumes = {v["name"]: v for v in deployment["spec"]["template"]["spec"]["volumes"]}
    (data,) = [v for v in volumes.values() if "persistentVolumeClaim" in v]
    assert data["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"]
    mounts = {m["name"]: m["mountPath"] for m in container(objects)["volumeMounts"]}
    variables = env(objects)
    # Every store's file or folder is on that volume.
    assert set(variables) >= STORE_VARIABLES
    for variable in STORE_VARIABLES:
        assert variables[variable].startswith(mounts[data["name"]] + "/"), variable
    assert "TRANSLATE_DATABASE_URL" not in variables
    # One pod at a time writes the files.
    assert deployment["spec"]["replicas"] == 1
    assert deployment["spec"]["strategy"] == {"type": "Recreate"}


def test_replicas_share_one_postgresql_database() -> None:
    objects = render(K8S / "overlays" / "shared-database")
    deployment = by_kind([o for o in objects if not is_database(o)], "Deployment")
    variables = {e["name"]: e for e in container(objects)["env"]}
    url = variables["TRANSLATE_DATABASE_URL"]["valueFrom"]["secretKeyRef"]
    assert url["key"] == "url" and "optional" not in url
    # No SQLite file, no volume for one: nothing a pod keeps is its own.
    assert not STORE_VARIABLES & set(variables)
    assert not [o for o in objects if o["kind"] == "PersistentVolumeClaim"]
    pod = deployment["spec"]["template"]["spec"]
    assert not [v for v in pod["volumes"] if "persistentVolumeClaim" in v]
    # The autoscaler owns the count; rollouts keep serving.
    assert "replicas" not in deployment["spec"]
    assert deployment["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    assert by_kind(objects, "HorizontalPodAutoscaler")["spec"]["minReplicas"] >= 2
    # The database: one StatefulSet with a claimed volume, reached through its Service.
    database = [o for o in objects if is_database(o)]
    statefulset = by_kind(database, "StatefulSet")
    service = by_kind(database, "Service")
    labels = statefulset["spec"]["template"]["metadata"]["labels"]
    assert selects(service["spec"]["selector"], labels)
    assert statefulset["spec"]["serviceName"] == service["metadata"]["name"]
    (claim,) = statefulset["spec"]["volumeClaimTemplates"]
    (postgres,) = statefulset["spec"]["template"]["spec"]["containers"]
    assert {m["name"]: m["mountPath"] for m in postgres["volumeMounts"]} == {
        claim["metadata"]["name"]: "/var/lib/postgresql/data"
    }
    database_env = {e["name"]: e for e in postgres["env"]}
    assert database_env["PGDATA"]["value"].startswith("/var/lib/postgresql/data/")
    assert "secretKeyRef" in database_env["POSTGRES_PASSWORD"]["valueFrom"]
    # The URL the overlay's instructions put in the Secret names that Service and database.
    instructions = (K8S / "overlays" / "shared-database" / "kustomization.yaml").read_text()
    user, name = database_env["POSTGRES_USER"]["value"], database_env["POSTGRES_DB"]["value"]
    port = service["spec"]["ports"][0]["port"]
    assert re.search(
        rf"postgresql://{user}:[^\"]*@{service['metadata']['name']}:{port}/{name}\"", instructions
    )
