"""Fixtures for the real-engine tests: models that load without a model hub."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tiny_model import tiny_model_dir

REPO_ROOT = Path(__file__).resolve().parents[2]
CACHE = REPO_ROOT / ".cache"

# What the engine needs on a CPU-only machine with no model hub; set before any test starts
# vLLM in this process (subprocess tests pass the same in their environment).
ENGINE_ENV = {
    "VLLM_CPU_KVCACHE_SPACE": "1",
    "VLLM_NO_USAGE_STATS": "1",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
}
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
