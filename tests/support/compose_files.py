"""The compose files read as `docker compose -f A -f B ...` reads them, without Docker: YAML with
compose's `!reset` and `!override` tags, later files merged over earlier ones, variables
interpolated. Enough of the Compose specification's rules for this repository's files; the
docker tier checks every documented file set with the real `docker compose config`."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
BASE = "docker-compose.yml"
GPU = "docker-compose.gpu.yml"
SCALE = "docker-compose.scale.yml"
LOCAL = "deploy/docker/compose.local.yml"
LOCAL_SCALE = "deploy/docker/compose.local-scale.yml"
# A default may hold a variable of its own, as compose allows: ${URL:-x://${PASSWORD:-pw}@h}.
_VARIABLE = re.compile(r"\$(?:(\$)|\{(\w+)(?:(:?[-?])((?:\$\{[^}]*\}|[^}])*))?\}|(\w+))")


class Reset:
    """`!reset`: the attribute goes back to unset, whatever earlier files said."""


class Override:
    """`!override VALUE`: the attribute is VALUE, not merged with earlier files'."""

    def __init__(self, value: Any) -> None:
        self.value = value


class _Loader(yaml.SafeLoader):
    pass


_Loader.add_constructor("!reset", lambda loader, node: Reset())
_Loader.add_constructor(
    "!override",
    lambda loader, node: Override(
        loader.construct_mapping(node, deep=True)
        if isinstance(node, yaml.MappingNode)
        else loader.construct_sequence(node, deep=True)
        if isinstance(node, yaml.SequenceNode)
        else loader.construct_scalar(node)
    ),
)


def read(path: str) -> dict[str, Any]:
    """One file as written, its tags as `Reset` and `Override`."""
    loaded: dict[str, Any] = yaml.load((ROOT / path).read_text(), Loader=_Loader)
    return loaded


def merge(base: Any, over: Any) -> Any:
    """Compose's merge: mappings key by key, sequences appended (without repeats), anything
    else replaced; `!reset` removes, `!override` replaces."""
    if isinstance(over, Override):
        return copy.deepcopy(over.value)
    if isinstance(base, dict) and isinstance(over, dict):
        merged = dict(base)
        for key, value in over.items():
            if isinstance(value, Reset):
                merged.pop(key, None)
            elif key in merged:
                merged[key] = merge(merged[key], value)
            else:
                merged[key] = _plain(value)
        return merged
    if isinstance(base, list) and isinstance(over, list):
        return base + [item for item in over if item not in base]
    return _plain(over)


def _plain(value: Any) -> Any:
    """A value from an override file with its tags applied as if nothing came before."""
    return merge({}, value) if isinstance(value, dict) else copy.deepcopy(value)


def interpolate(value: Any, environ: dict[str, str]) -> Any:
    """Compose's variable substitution: $VAR, ${VAR}, ${VAR:-default}, ${VAR-default}, $$, and
    a variable in a default."""
    if isinstance(value, dict):
        return {key: interpolate(item, environ) for key, item in value.items()}
    if isinstance(value, list):
        return [interpolate(item, environ) for item in value]
    if not isinstance(value, str):
        return value

    def substitute(match: re.Match[str]) -> str:
        escaped, name, operator, default, bare = match.groups()
        if escaped:
            return "$"
        name = name or bare
        current = environ.get(name)
        if operator == ":-" and not current:
            return str(interpolate(default, environ))
        if operator == "-" and current is None:
            return str(interpolate(default, environ))
        if operator in (":?", "?") and not current:
            raise KeyError(f"{name} is required: {default}")
        return current or ""

    return _VARIABLE.sub(substitute, value)


def stack(*files: str, environ: dict[str, str] | None = None) -> dict[str, Any]:
    """What `docker compose -f BASE -f FILE...` runs, with `environ` as its shell and .env."""
    merged: dict[str, Any] = {}
    for path in (BASE, *files):
        merged = merge(merged, read(path))
    resolved: dict[str, Any] = interpolate(merged, environ or {})
    return resolved
