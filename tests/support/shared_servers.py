"""Real servers shared by the whole run, one per model and settings, and a server of its own for
a test that stops or kills it.

Starting `translate-server serve` costs 20-80 s (the engine's start and the model's load): a
server per module made most of the engine tiers' time. Every module of the engine, browser and
process tiers that needs only the tiny model behind plain settings shares `tiny_server`. What
each test makes (memories, glossaries, DeepL usage) stays its own through an owner of its own:
`deepl_key` gives each test its own DeepL key, and the DeepL surface keeps an account per key
even on a server without API keys (`translate_server.owners`).

Restarts, drains and kills happen only in the tests that test them, on `own_tiny_server`: a test
that stops the shared server fails, and says so.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.server_process import ServerProcess, start
from tests.support.tiny_model import tiny_model_dir

CACHE = Path(__file__).resolve().parents[2] / ".cache"

# The tiny random-weight model with the settings every sharing module can use.
TINY_ARGS = [
    "--served-model-name", "tiny",
    "--max-model-len", "512",
    "--max-num-seqs", "8",
    # Random weights answer gibberish: every answer would fail the quality checks.
    "--no-quality-guard",
    # The first requests on a busy CPU are slow (structured outputs compile their grammar).
    "--request-timeout", "600",
]  # fmt: skip


# Most of a start is importing vLLM and torch, twice (the server and its engine core): on a
# machine busy with other work that alone has taken minutes. A deadline costs nothing when met.
STARTUP_TIMEOUT = 600.0


def start_tiny_server(log_dir: Path) -> ServerProcess:
    """`translate-server serve` on the tiny model with `TINY_ARGS`, its stores beside its log."""
    model = tiny_model_dir(CACHE / "test-models")
    return start(["--model", str(model), *TINY_ARGS], log_dir / "server.log", STARTUP_TIMEOUT)


@pytest.fixture(scope="session")
def _the_shared_tiny_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = start_tiny_server(tmp_path_factory.mktemp("shared-tiny-server"))
    yield process
    process.stop()


@pytest.fixture
def tiny_server(_the_shared_tiny_server: ServerProcess) -> Iterator[ServerProcess]:
    """The run's one server on the tiny model (started by the first test that asks for it).
    Its stores are shared: a test names what it makes uniquely, or makes it under its own
    `deepl_key`."""
    yield _the_shared_tiny_server
    assert _the_shared_tiny_server.process.poll() is None, (
        "this test stopped the run's shared server: a test that stops, drains or kills a "
        "server takes `own_tiny_server`"
    )


@pytest.fixture
def own_tiny_server(tmp_path: Path) -> Iterator[ServerProcess]:
    """A server on the tiny model for this test alone, as `tiny_server` is configured: for
    the tests of what a signal does to it."""
    process = start_tiny_server(tmp_path)
    yield process
    process.stop()


@pytest.fixture
def deepl_key() -> str:
    """A DeepL auth key of this test's own: its memories, glossaries, style rules and usage
    are its key's alone on a shared server."""
    return f"test-{uuid.uuid4().hex}"


class LentEngine:
    """A shared engine lent to an app: the app's lifespan shuts its engine down as it ends,
    and this one outlives the app (everything else is the engine's own)."""

    def __init__(self, engine: object) -> None:
        self._lent = engine

    def __getattr__(self, name: str) -> object:
        return getattr(self._lent, name)

    def shutdown(self) -> None:
        """The engine's owner shuts it down, at the end of the run."""
