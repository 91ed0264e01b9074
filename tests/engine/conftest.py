"""Fixtures for the real-engine tests: models that load without a model hub."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.server_process import ENGINE_ENV
from tests.support.tiny_model import tiny_model_dir

REPO_ROOT = Path(__file__).resolve().parents[2]
CACHE = REPO_ROOT / ".cache"

# Set before any test starts vLLM in this process (server processes get the same).
for _name, _value in ENGINE_ENV.items():
    os.environ.setdefault(_name, _value)


@pytest.fixture(scope="session")
def tiny_model() -> Path:
    """A 2-layer random-weight Llama with a ChatML template (built once, cached by recipe)."""
    return tiny_model_dir(CACHE / "test-models")


@pytest.fixture(scope="session")
def model_cache_dir() -> Path:
    """Where the bundled default model is prepared; kept between runs (conversion ~40 s)."""
    path = CACHE / "model-cache"
    path.mkdir(parents=True, exist_ok=True)
    return path
