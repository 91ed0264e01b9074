"""A front end that owns no store (`--api-processes` above 1) forwards the requests that need
one to the front end that owns them, over its Unix socket, and answers the rest itself."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import uvicorn
from litestar import Litestar

from translate_server.app import create_app
from translate_server.http.openapi import DOCS_PATH
from translate_server.http.route_paths import RoutePaths
from translate_server.memory.keys import MEMORIES
from translate_server.server.front_end import FrontEndRole
from translate_server.settings import Settings, load_settings

from tests.support.fakes import FakeEngine
from tests.support.harness import eventually, running

TRANSLATE = {"text": "hello", "source_lang": "en", "target_lang": "de"}


def settings_in(tmp_path: Path) -> Settings:
    return load_settings(
        {
            "served_model_name": "fake-model",
            "document_dir": str(tmp_path / "documents"),
            "glossary_db": str(tmp_path / "glossaries.sqlite3"),
            "memory_db": str(tmp_path / "memories.sqlite3"),
            "quality_guard": False,
        },
        environ={},
    )


@asynccontextmanager
async def owner_on(path: str, app: Litestar) -> AsyncIterator[None]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(path)
    server = uvicorn.Server(uvicorn.Config(app, lifespan="on", log_config=None))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        await eventually(lambda: server.started)
        yield
    finally:
        server.should_exit = True
        await task


def front_end(settings: Settings, engine: FakeEngine, owner_socket: str) -> Litestar:
    role = FrontEndRole(owner_socket=owner_socket, max_body_bytes=settings.limits.max_body_bytes)
    return create_app(settings, lambda: engine, owns_stores=role.owns_stores, outer=role.outer)


async def test_store_requests_reach_the_owner_and_the_rest_stay(tmp_path: Path) -> None:
    settings = settings_in(tmp_path)
    owner_engine, front_engine = FakeEngine(), FakeEngine()
    path = str(tmp_path / "owner.sock")
    async with (
        owner_on(path, create_app(settings, lambda: owner_engine)),
        running(front_end(settings, front_engine, path)) as client,
    ):
        assert client.app.state.services.get(MEMORIES) is None  # the front end opened no store
        created = await client.post("/memories", json={"name": "shop"})
        assert created.status_code == 201, created.text
        memory = created.json()["id"]
        listed = await client.get("/memories")
        assert [m["id"] for m in listed.json()["data"]] == [memory]

        plain = await client.post("/translate", json=TRANSLATE)
        assert plain.status_code == 200
        assert (len(front_engine.requests), len(owner_engine.requests)) == (1, 0)

        with_memory = await client.post("/translate", json={**TRANSLATE, "memory": memory})
        assert with_memory.status_code == 200, with_memory.text
        assert (len(front_engine.requests), len(owner_engine.requests)) == (1, 1)
        unknown = await client.post("/translate", json={**TRANSLATE, "memory": "mem_none"})
        assert unknown.status_code == 404  # the owner's answer, passed through

        usage = await client.get("/v2/usage", headers={"Authorization": "DeepL-Auth-Key k"})
        assert usage.status_code == 200
        assert "character_count" in usage.json()


async def test_an_owner_that_is_gone_is_a_503_in_the_route_s_shape(tmp_path: Path) -> None:
    settings = settings_in(tmp_path)
    async with running(front_end(settings, FakeEngine(), str(tmp_path / "none.sock"))) as client:
        ours = await client.get("/memories")
        assert ours.status_code == 503
        assert ours.json()["error"]["type"]
        assert ours.headers["retry-after"] == "1"
        deepl = await client.get("/v2/usage")
        assert deepl.status_code == 503
        assert "message" in deepl.json()  # DeepL's shape, not OpenAI's envelope


def test_every_route_that_touches_a_store_is_forwarded(tmp_path: Path) -> None:
    app = create_app(settings_in(tmp_path), FakeEngine)
    found = RoutePaths.of(app, docs_path=DOCS_PATH, metrics_need_key=False)
    paths = {route.path for route in app.routes}
    stateful = {
        p for p in paths if p.startswith(("/memories", "/v2/", "/v3/", "/translate/document"))
    }
    stateful |= {p for p in paths if "file" in p and p.startswith("/libretranslate/")}
    stateful |= {"/libretranslate/frontend/settings"}  # it says whether files are served
    assert "/v3/translation_memories" in stateful, paths
    assert all(found.needs_stores(p) for p in stateful)
    served_here = {
        "/translate",
        "/v1/chat/completions",
        "/v1/completions",
        "/v1/responses",
        "/health",
        "/health/live",
        "/metrics",
        "/libretranslate/translate",
        "/",
    }
    assert not any(found.needs_stores(p) for p in served_here & paths)
    # /translate needs the stores only when its body names a memory or a stored glossary.
    google = ("glossaryConfig", "dataset")
    assert found.store_fields == {
        "/translate": ("memory", "glossary_id"),
        "/v3/projects/{parent:str}": google,
        "/v3/projects/{project:str}/locations/{location:str}": google,
    }
