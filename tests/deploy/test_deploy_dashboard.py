"""The Grafana dashboard queries only metrics the service and vLLM really export."""

from __future__ import annotations

import pytest

from tests.support.deploy_metrics import (
    dashboard_metric_names,
    exported_metric_names,
    installed_vllm_loggers,
    promql_metric_names,
    vllm_defined_metric_names,
)

# What operators of an LLM translation service watch, one metric (or alternatives) each.
REQUIRED = {
    "requests/s and errors by route": {"translate_requests_total"},
    "request latency percentiles": {"translate_request_duration_seconds_bucket"},
    "time to first token": {
        "translate_time_to_first_token_seconds_bucket",
        "vllm:time_to_first_token_seconds_bucket",
    },
    "time per output token": {
        "vllm:inter_token_latency_seconds_bucket",
        "vllm:request_time_per_output_token_seconds_bucket",
    },
    "KV-cache use": {"vllm:kv_cache_usage_perc"},
    "requests running": {"translate_requests_running", "vllm:num_requests_running"},
    "requests waiting": {"translate_requests_waiting", "vllm:num_requests_waiting"},
    "overload rejections": {"translate_requests_rejected_total"},
}


@pytest.mark.parametrize(
    ("expr", "names"),
    [
        (
            "sum by (route) (rate(translate_requests_total[$__rate_interval]))",
            {"translate_requests_total"},
        ),
        ('sum(rate(a_total{status=~"5..", route!="x"}[5m])) / sum(rate(a_total[5m]))', {"a_total"}),
        (
            (
                "histogram_quantile(0.95, sum by (le, route) "
                "(rate(vllm:e2e_request_latency_seconds_bucket[1m])))"
            ),
            {"vllm:e2e_request_latency_seconds_bucket"},
        ),
        (
            "max by (instance) (vllm:kv_cache_usage_perc) > bool 0.9 or on (instance) up",
            {"vllm:kv_cache_usage_perc", "up"},
        ),
        ("rate(x_total[5m] offset 1h) * 1e-3 + max_over_time(y[10m:1m])", {"x_total", "y"}),
        ('count(z{name="sum(rate(fake[1m]))"}) without (pod)', {"z"}),
    ],
)
def test_promql_metric_names(expr: str, names: set[str]) -> None:
    assert promql_metric_names(expr) == names


def test_promql_names_refuse_name_matchers() -> None:
    with pytest.raises(ValueError, match="selects metrics by __name__"):
        promql_metric_names('{__name__=~"translate_.*"}')


def test_dashboard_metric_names_walks_rows_and_variables() -> None:
    dashboard = {
        "panels": [
            {"type": "row", "panels": [{"targets": [{"expr": "sum(a_total)"}]}]},
            {"targets": [{"expr": "rate(b_total[1m])"}, {"refId": "B"}]},
        ],
        "templating": {
            "list": [
                {"type": "query", "query": {"query": "label_values(c_info, model)"}},
                {"type": "datasource", "query": "prometheus"},
            ]
        },
    }
    assert dashboard_metric_names(dashboard) == {"a_total", "b_total", "c_info"}


def test_exported_names_cover_untouched_labelled_metrics() -> None:
    text = (
        "# HELP t_requests Requests.\n# TYPE t_requests counter\n"
        "# HELP t_latency_seconds Latency.\n# TYPE t_latency_seconds histogram\n"
        "# HELP vllm:num_requests_waiting Waiting.\n# TYPE vllm:num_requests_waiting gauge\n"
        'vllm:num_requests_waiting{engine="0",model_name="m"} 0.0\n'
    )
    assert exported_metric_names(text) >= {
        "t_requests_total",
        "t_latency_seconds_bucket",
        "t_latency_seconds_count",
        "vllm:num_requests_waiting",
    }
    assert "t_requests" not in exported_metric_names(text)


def test_dashboard_shows_what_operators_watch(dashboard: dict) -> None:
    names = dashboard_metric_names(dashboard)
    missing = [topic for topic, options in REQUIRED.items() if not names & options]
    assert not missing, f"dashboard has no panel for: {missing}"
    queries = " ".join(t["expr"] for p in dashboard["panels"] for t in p.get("targets", []))
    assert "histogram_quantile(0.5," in queries and "histogram_quantile(0.95," in queries


def test_dashboard_panels_use_the_datasource_variable(dashboard: dict) -> None:
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource"
    assert variables["datasource"]["query"] == "prometheus"
    ids = [p["id"] for p in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    for panel in dashboard["panels"]:
        if panel["type"] == "row":
            continue
        assert panel["datasource"]["uid"] == "${datasource}", panel["title"]
        assert panel["targets"], panel["title"]


def test_dashboard_service_metrics_match_the_service_collectors(dashboard: dict) -> None:
    """The service's own collectors, exposed as /metrics exposes them."""
    app = pytest.importorskip("translate_server.app")
    from prometheus_client import generate_latest

    metrics = app.service_metrics()
    exported = exported_metric_names(generate_latest(metrics.registry).decode())
    wanted = {n for n in dashboard_metric_names(dashboard) if not n.startswith("vllm:")}
    assert wanted, "the dashboard queries no service metric"
    assert wanted <= exported, f"not exported by the service: {sorted(wanted - exported)}"


def test_dashboard_vllm_metrics_are_defined_by_the_installed_vllm(dashboard: dict) -> None:
    loggers = installed_vllm_loggers()
    if loggers is None:
        pytest.skip("vLLM is not installed")
    defined = vllm_defined_metric_names(loggers.read_text())
    assert "vllm:num_requests_waiting" in defined  # the reader itself still works
    wanted = {n for n in dashboard_metric_names(dashboard) if n.startswith("vllm:")}
    assert wanted, "the dashboard queries no vLLM metric"
    assert wanted <= defined, f"not defined by vLLM: {sorted(wanted - defined)}"


def test_dashboard_metrics_are_on_a_live_metrics_page(
    dashboard: dict, live_metrics_text: str
) -> None:
    exported = exported_metric_names(live_metrics_text)
    wanted = dashboard_metric_names(dashboard)
    if not any(name.startswith("vllm:") for name in exported):
        # An engine test double registers no vLLM metrics: those are checked against the
        # installed vLLM above; the service's own must all be live here.
        wanted = {n for n in wanted if not n.startswith("vllm:")}
    assert wanted <= exported, f"not on /metrics: {sorted(wanted - exported)}"
