"""Metric names: those a Grafana dashboard queries, and those a /metrics page exports."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
_MATCHERS = re.compile(r"\{[^{}]*\}")
_RANGES = re.compile(r"\[[^\[\]]*\]")
_GROUPING = re.compile(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)")
_IDENTIFIER = re.compile(r"(?<![\w:.$])[A-Za-z_:][\w:]*")
_KEYWORDS = {
    "by",
    "without",
    "on",
    "ignoring",
    "group_left",
    "group_right",
    "bool",
    "offset",
    "and",
    "or",
    "unless",
    "inf",
    "nan",
    "atan2",
}
_LABEL_VALUES = re.compile(r"^\s*label_values\(\s*(.*?)\s*,\s*[A-Za-z_]\w*\s*\)\s*$", re.DOTALL)
_QUERY_RESULT = re.compile(r"^\s*query_result\((.*)\)\s*$", re.DOTALL)

# Sample names a metric family of each type exposes (prometheus_client strips `_total`
# from counter family names and `_info` from info family names).
_SUFFIXES = {
    "counter": ("_total", "_created"),
    "histogram": ("_bucket", "_count", "_sum", "_created"),
    "gaugehistogram": ("_bucket", "_gcount", "_gsum"),
    "summary": ("", "_count", "_sum", "_created"),
    "info": ("_info",),
    "stateset": ("",),
    "gauge": ("",),
    "unknown": ("",),
    "untyped": ("",),
}


def promql_metric_names(expr: str) -> set[str]:
    """Metric names a PromQL expression selects (functions, keywords and labels excluded)."""
    if "__name__" in expr:
        raise ValueError(f"selects metrics by __name__, names cannot be checked: {expr}")
    text = _STRING.sub('""', expr)
    previous = None
    while previous != text:  # nested brackets, e.g. subqueries
        previous = text
        text = _MATCHERS.sub(" ", text)
        text = _RANGES.sub(" ", text)
    text = _GROUPING.sub(" ", text)
    names = set()
    for match in _IDENTIFIER.finditer(text):
        name = match.group()
        rest = text[match.end() :].lstrip()
        if rest.startswith("(") or name.lower() in _KEYWORDS:
            continue
        names.add(name)
    return names


def _panels(panels: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for panel in panels:
        yield panel
        yield from _panels(panel.get("panels", []))


def dashboard_queries(dashboard: dict[str, Any]) -> list[str]:
    """Every PromQL expression of a dashboard: panel targets (rows included) and variables."""
    queries = [
        target["expr"]
        for panel in _panels(dashboard.get("panels", []))
        for target in panel.get("targets", [])
        if target.get("expr")
    ]
    for variable in dashboard.get("templating", {}).get("list", []):
        if variable.get("type") != "query":
            continue
        query = variable.get("query")
        query = query.get("query", "") if isinstance(query, dict) else (query or "")
        if (match := _LABEL_VALUES.match(query)) or (match := _QUERY_RESULT.match(query)):
            queries.append(match.group(1))
        elif query.strip():
            raise ValueError(f"variable {variable.get('name')!r}: cannot read {query!r}")
    return queries


def dashboard_metric_names(dashboard: dict[str, Any]) -> set[str]:
    """The metric (sample) names a Grafana dashboard's queries select."""
    names: set[str] = set()
    for query in dashboard_queries(dashboard):
        names |= promql_metric_names(query)
    return names


def exported_metric_names(metrics_text: str) -> set[str]:
    """Sample names a Prometheus text exposition offers to queries.

    Derived from each family's type as well as from the samples present, so that a labelled
    metric nobody has touched yet (HELP and TYPE lines, no samples) still counts.
    """
    names: set[str] = set()
    for family in text_string_to_metric_families(metrics_text):
        names.update(family.name + suffix for suffix in _SUFFIXES.get(family.type, ("",)))
        names.update(sample.name for sample in family.samples)
    return names


_VLLM_DEFINITION = re.compile(
    r"_(?P<type>counter|gauge|histogram)_cls\(\s*name=\"(?P<name>vllm:[\w:]+)\""
)


def vllm_defined_metric_names(loggers_source: str) -> set[str]:
    """Sample names of the metrics vLLM's Prometheus stat logger defines (its source code)."""
    names: set[str] = set()
    for match in _VLLM_DEFINITION.finditer(loggers_source):
        kind, name = match.group("type"), match.group("name")
        if kind == "counter":
            name = name.removesuffix("_total")
        names.update(name + suffix for suffix in _SUFFIXES[kind])
    return names


def installed_vllm_loggers() -> Path | None:
    """vllm/v1/metrics/loggers.py of the installed vLLM, found without importing vLLM."""
    import importlib.util

    spec = importlib.util.find_spec("vllm")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        path = Path(location) / "v1" / "metrics" / "loggers.py"
        if path.is_file():
            return path
    return None
