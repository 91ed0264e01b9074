"""A small kustomize renderer for the subset deploy/k8s uses, so that tests need no binary.

Supported kustomization fields: resources (files and directories), components (each a
`kind: Component` directory, applied in order to what the resources made), patches (JSON 6902
operations, inline or from a file, with a group/version/kind/name target), labels (with
includeTemplates; not includeSelectors) and images (newName, newTag, digest). Anything else
raises `Unsupported`, so a manifest change the renderer cannot follow fails loudly instead of
being rendered wrongly. Transformers run in kustomize's order: patches, labels, images.
Where a kustomize binary is available, tests compare this renderer's output with its output.
"""

from __future__ import annotations

import copy
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

# Oldest Kubernetes release the manifests promise to work on.
OLDEST_KUBERNETES = "1.29.0"
KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
SUPPORTED_FIELDS = {"apiVersion", "kind", "resources", "components", "patches", "labels", "images"}
# Where kustomize puts pod template labels (`includeTemplates`) and finds containers.
TEMPLATE_PATHS = {
    "Deployment": ("spec", "template"),
    "ReplicaSet": ("spec", "template"),
    "StatefulSet": ("spec", "template"),
    "DaemonSet": ("spec", "template"),
    "Job": ("spec", "template"),
    "CronJob": ("spec", "jobTemplate", "spec", "template"),
}


class Unsupported(Exception):
    """The kustomization uses something this renderer does not implement."""


class PatchError(Exception):
    pass


def render(directory: str | Path) -> list[dict[str, Any]]:
    directory = Path(directory)
    kustomization = _load_kustomization(directory)
    if kustomization.get("kind") == "Component":
        raise Unsupported(f"{directory}: a Component is rendered through a kustomization")
    return _build(directory, kustomization, [])


def render_with_components(directory: str | Path, *components: str | Path) -> list[dict[str, Any]]:
    """The kustomization in `directory` with optional components added to its `components:`,
    as a user adds them in its kustomization.yaml (e.g. components/servicemonitor)."""
    directory = Path(directory)
    kustomization = _load_kustomization(directory)
    added = [os.path.relpath(component, directory) for component in components]
    extended = {**kustomization, "components": [*kustomization.get("components", []), *added]}
    return _build(directory, extended, [])


def _build(
    directory: Path, kustomization: dict[str, Any], objects: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """As kustomize builds: the resources (after what a component was given), then each
    component over them all, then this kustomization's own transformers."""
    unknown = set(kustomization) - SUPPORTED_FIELDS
    if unknown:
        raise Unsupported(f"{directory}: fields {sorted(unknown)}")
    for entry in kustomization.get("resources", []):
        path = directory / entry
        if path.is_dir():
            objects.extend(render(path))
        elif path.is_file():
            objects.extend(doc for doc in yaml.safe_load_all(path.read_text()) if doc)
        else:
            raise Unsupported(f"{directory}: resource {entry!r} is not a local file or directory")
    seen: set[tuple[str, str, str]] = set()
    for obj in objects:
        key = resource_id(obj)
        if key in seen:
            raise ValueError(f"{directory}: {key} defined twice")
        seen.add(key)
    for entry in kustomization.get("components", []):
        component = _load_kustomization(directory / entry)
        if component.get("kind") != "Component":
            raise Unsupported(f"{directory}: component {entry!r} is not a kind: Component")
        objects = _build(directory / entry, component, objects)
    for patch in kustomization.get("patches", []):
        _apply_patch(directory, patch, objects)
    for entry in kustomization.get("labels", []):
        _apply_labels(entry, objects)
    for image in kustomization.get("images", []):
        _apply_image(image, objects)
    return objects


def resource_id(obj: dict[str, Any]) -> tuple[str, str, str]:
    metadata = obj.get("metadata", {})
    return obj["kind"], metadata.get("namespace", ""), metadata["name"]


def _load_kustomization(directory: Path) -> dict[str, Any]:
    for name in KUSTOMIZATION_FILES:
        path = directory / name
        if path.is_file():
            return yaml.safe_load(path.read_text()) or {}
    raise FileNotFoundError(f"no kustomization file in {directory}")


def _group_version(obj: dict[str, Any]) -> tuple[str, str]:
    api_version = obj["apiVersion"]
    return tuple(api_version.split("/", 1)) if "/" in api_version else ("", api_version)


def _matches(target: dict[str, Any], obj: dict[str, Any]) -> bool:
    unknown = set(target) - {"group", "version", "kind", "name", "namespace"}
    if unknown:
        raise Unsupported(f"patch target fields {sorted(unknown)}")
    group, version = _group_version(obj)
    checks = {
        "group": group,
        "version": version,
        "kind": obj["kind"],
        "name": obj["metadata"]["name"],
        "namespace": obj["metadata"].get("namespace", ""),
    }
    # kustomize matches names and namespaces as anchored regular expressions.
    return all(re.fullmatch(str(target[key]), checks[key]) for key in target)


def _apply_patch(directory: Path, entry: dict[str, Any], objects: list[dict[str, Any]]) -> None:
    unknown = set(entry) - {"path", "patch", "target"}
    if unknown:
        raise Unsupported(f"patch fields {sorted(unknown)}")
    if "target" not in entry:
        raise Unsupported("patches without a target (strategic merge) are not supported")
    text = (directory / entry["path"]).read_text() if "path" in entry else entry["patch"]
    operations = yaml.safe_load(text)
    if not isinstance(operations, list):
        raise Unsupported("only JSON 6902 patches (a list of operations) are supported")
    targets = [obj for obj in objects if _matches(entry["target"], obj)]
    if not targets:
        raise PatchError(f"patch target {entry['target']} matches nothing")
    for obj in targets:
        patched = json_patch(obj, operations)
        obj.clear()
        obj.update(patched)


def json_patch(document: Any, operations: list[dict[str, Any]]) -> Any:
    """RFC 6902 add, remove, replace and test; the document is not modified in place."""
    document = copy.deepcopy(document)
    for operation in operations:
        op, path = operation["op"], operation["path"]
        if op not in ("add", "remove", "replace", "test"):
            raise Unsupported(f"JSON patch op {op!r}")
        tokens = _pointer(path)
        if not tokens:
            raise Unsupported("patching the whole document")
        parent = _resolve(document, tokens[:-1], path)
        last = tokens[-1]
        if isinstance(parent, list):
            if last == "-" and op == "add":
                parent.append(copy.deepcopy(operation["value"]))
                continue
            if not last.isdigit():
                raise PatchError(f"{path}: {last!r} is not an array index")
            index = int(last)
            limit = len(parent) + (1 if op == "add" else 0)
            if index >= limit:
                raise PatchError(f"{path}: index {index} out of range")
            if op == "add":
                parent.insert(index, copy.deepcopy(operation["value"]))
            elif op == "remove":
                del parent[index]
            elif op == "replace":
                parent[index] = copy.deepcopy(operation["value"])
            elif parent[index] != operation["value"]:
                raise PatchError(f"{path}: test failed")
        elif isinstance(parent, dict):
            if op != "add" and last not in parent:
                raise PatchError(f"{path}: no such member")
            if op in ("add", "replace"):
                parent[last] = copy.deepcopy(operation["value"])
            elif op == "remove":
                del parent[last]
            elif parent[last] != operation["value"]:
                raise PatchError(f"{path}: test failed")
        else:
            raise PatchError(f"{path}: parent is not a container")
    return document


def _pointer(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise PatchError(f"{path!r} is not a JSON pointer")
    return [token.replace("~1", "/").replace("~0", "~") for token in path[1:].split("/")]


def _resolve(document: Any, tokens: list[str], path: str) -> Any:
    node = document
    for token in tokens:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise PatchError(f"{path}: {token!r} does not exist")
    return node


def _dig(obj: dict[str, Any], path: tuple[str, ...], create: bool) -> dict[str, Any] | None:
    node = obj
    for key in path:
        if key not in node:
            if not create:
                return None
            node[key] = {}
        node = node[key]
    return node


def _apply_labels(entry: dict[str, Any], objects: list[dict[str, Any]]) -> None:
    unknown = set(entry) - {"pairs", "includeTemplates", "includeSelectors"}
    if unknown:
        raise Unsupported(f"labels fields {sorted(unknown)}")
    if entry.get("includeSelectors"):
        raise Unsupported("labels.includeSelectors")
    pairs = {key: str(value) for key, value in (entry.get("pairs") or {}).items()}
    for obj in objects:
        obj["metadata"].setdefault("labels", {}).update(pairs)
        template_path = TEMPLATE_PATHS.get(obj["kind"])
        if entry.get("includeTemplates") and template_path:
            template = _dig(obj, template_path, create=True)
            template.setdefault("metadata", {}).setdefault("labels", {}).update(pairs)


def _split_image(image: str) -> tuple[str, str, str]:
    """name, tag, digest: the tag is after the last ':' of the last path component."""
    name, _, digest = image.partition("@")
    slash = name.rfind("/")
    colon = name.rfind(":")
    tag = ""
    if colon > slash:
        name, tag = name[:colon], name[colon + 1 :]
    return name, tag, digest


def _apply_image(entry: dict[str, Any], objects: list[dict[str, Any]]) -> None:
    unknown = set(entry) - {"name", "newName", "newTag", "digest"}
    if unknown:
        raise Unsupported(f"images fields {sorted(unknown)}")
    for obj in objects:
        template_path = TEMPLATE_PATHS.get(obj["kind"])
        pod = (
            obj
            if obj["kind"] == "Pod"
            else (_dig(obj, template_path, create=False) if template_path else None)
        )
        spec = (pod or {}).get("spec") or {}
        for container in spec.get("containers", []) + spec.get("initContainers", []):
            name, tag, digest = _split_image(container["image"])
            if name != entry["name"]:
                continue
            new = entry.get("newName", name)
            if "digest" in entry:
                new += "@" + entry["digest"]
            elif "newTag" in entry:
                new += ":" + str(entry["newTag"])
            elif digest:
                new += (":" + tag if tag else "") + "@" + digest
            elif tag:
                new += ":" + tag
            container["image"] = new


# --- reading what was rendered, and what to check it against --------------------------


def by_kind(objects: list[dict], kind: str) -> dict:
    found = [obj for obj in objects if obj["kind"] == kind]
    assert len(found) == 1, f"expected one {kind}, found {len(found)}"
    return found[0]


def selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def kustomize_command() -> list[str] | None:
    if shutil.which("kustomize"):
        return ["kustomize", "build"]
    if shutil.which("kubectl"):
        return ["kubectl", "kustomize"]
    return None


def kubernetes_versions() -> list[str]:
    kubernetes_validate = pytest.importorskip("kubernetes_validate")
    return sorted({OLDEST_KUBERNETES, kubernetes_validate.latest_version()})
