"""Fixtures for the real-engine tests: models that load without a model hub."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

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


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def shared_tiny_engine(tiny_model: Path) -> AsyncIterator[Any]:
    """One in-process VllmEngine on the tiny model for every module that needs the Python
    object and can share it (an engine start is 20-80 s). Created in the session's event loop,
    to which vLLM binds its output handler: the tests that use it run in that loop
    (`pytest.mark.asyncio(loop_scope="session")`). A test that kills an engine, or needs other
    engine settings, makes its own."""
    from translate_server.inference.engine.vllm_engine import create_vllm_engine
    from translate_server.settings import EngineSettings

    settings = EngineSettings(
        model=str(tiny_model), served_model_name="tiny", max_model_len=512, max_num_seqs=8
    )
    engine = create_vllm_engine(settings)
    yield engine
    engine.shutdown()
