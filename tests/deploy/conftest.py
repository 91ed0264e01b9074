"""Fixtures for the deployment checks (images, compose, Kubernetes, dashboard)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def dashboard() -> dict:
    return json.loads((DEPLOY / "grafana" / "dashboards" / "translate-server.json").read_text())


@pytest.fixture(scope="session")
def translate_env_names() -> set[str]:
    """Every TRANSLATE_* variable the server reads, from its own option table."""
    settings = pytest.importorskip("translate_server.settings")
    return {option.env for option in settings.OPTIONS}


# ---------------------------------------------------------------------------------------
# HOOK: live /metrics. The app started in-process around the engine test double (the
# `client` fixture of tests/conftest.py); one request to each route first, so labelled
# series exist too. Replace the body to scrape another app (e.g. one with the real engine,
# which adds vLLM's metrics); a page without `vllm:*` metrics only checks the service's.
# ---------------------------------------------------------------------------------------
@pytest.fixture
async def live_metrics_text(client) -> str:
    translated = await client.post(
        "/translate", json={"text": "Good morning", "source_lang": "en", "target_lang": "de"}
    )
    chatted = await client.post(
        "/v1/chat/completions", json={"messages": [{"role": "user", "content": "Hello"}]}
    )
    assert translated.status_code == chatted.status_code == 200
    response = await client.get("/metrics")
    assert response.status_code == 200
    return response.text
