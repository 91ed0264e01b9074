from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar import Litestar

from translate_server.app import create_app
from translate_server.settings import Settings, load_settings

# The stores' databases on both backends, for any test that asks for them.
from tests.support.databases import (  # noqa: F401 - fixtures
    backend,
    database_location,
    databases,
    postgres,
    postgres_cluster,
)
from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, running

# One real server per model for the whole run, and one of its own for a test that stops it.
from tests.support.shared_servers import (  # noqa: F401 - fixtures
    _the_shared_tiny_server,
    deepl_key,
    own_tiny_server,
    tiny_server,
)
from tests.support.stores import own_stores

AppFactory = Callable[..., Litestar]


@pytest.fixture(scope="session", autouse=True)
def stores_outside_the_users_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Any app or server a test starts without naming its stores keeps them in a folder of this
    run, through the `TRANSLATE_*` variables its process (and its children) read: never in
    `~/.cache/translate-server`, whose files belong to the user and may be at another schema
    revision than the code under test."""
    folder = tmp_path_factory.mktemp("default-stores")
    variables = {f"TRANSLATE_{name.upper()}": value for name, value in own_stores(folder).items()}
    before = {name: os.environ.get(name) for name in variables}
    os.environ.update({name: value for name, value in variables.items() if not before[name]})
    yield
    for name, value in before.items():
        if value is None:
            os.environ.pop(name, None)


@pytest.fixture
def engine() -> FakeEngine:
    return FakeEngine()


@pytest.fixture
def make_app(engine: FakeEngine, tmp_path: Path, request: pytest.FixtureRequest) -> AppFactory:
    """An app around the fake engine; keyword arguments are settings overrides by option name.
    Its document jobs, DeepL database and translation memories live in the test's own directory;
    in a module that runs on both backends (`pytestmark = pytest.mark.usefixtures("backend")`),
    in a PostgreSQL database of its own where the backend is PostgreSQL."""
    if "backend" in request.fixturenames and request.getfixturevalue("backend") == "postgresql":
        shared = {"database_url": request.getfixturevalue("database_location")}
    else:
        shared = {}

    def build(engine_: FakeEngine | None = None, **overrides: Any) -> Litestar:
        # The fake engine answers with the source upper-cased, which the quality guard rightly
        # calls an echo: the guard's own tests turn it on.
        settings: Settings = load_settings(
            {
                "served_model_name": "fake-model",
                **own_stores(tmp_path),
                "quality_guard": False,
                **shared,
                **overrides,
            },
            environ={},
        )
        chosen = engine_ or engine
        return create_app(settings, lambda: chosen)

    return build


@pytest.fixture
async def client(make_app: AppFactory) -> AsyncIterator[AppClient]:
    async with running(make_app()) as app_client:
        yield app_client
