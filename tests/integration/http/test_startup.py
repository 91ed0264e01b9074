"""What the app has built by the time it says it is ready (the server freezes its heap then,
so whatever start-up creates later would be walked by every full collection), and what a start
that fails leaves behind: nothing."""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path

import pytest

from translate_server.app import create_app
from translate_server.documents.keys import DOCUMENTS
from translate_server.settings import Settings, load_settings
from translate_server.storage.opening import StoreDatabases
from translate_server.translation.prompts.templates import TemplateError

from tests.support.fakes import FakeEngine
from tests.support.harness import running
from tests.support.stores import own_stores


async def test_on_ready_comes_after_the_services_and_the_document_libraries(tmp_path) -> None:
    seen: dict[str, object] = {}
    settings = load_settings(
        {"served_model_name": "fake-model", "quality_guard": False, **own_stores(tmp_path)},
        environ={},
    )
    app = create_app(
        settings,
        FakeEngine,
        on_ready=lambda: seen.update(
            services=app.state.get("services"),
            libraries={name for name in ("docx", "pptx", "polib", "srt") if name in sys.modules},
        ),
    )
    async with running(app) as client:
        assert (await client.get("/health")).status_code == 200
    services = seen["services"]
    assert services is not None and services.get(DOCUMENTS) is not None  # type: ignore[attr-defined]
    assert seen["libraries"] == {"docx", "pptx", "polib", "srt"}


# The SQLite databases' worker threads (storage/database.py).
RESOURCE_THREADS = ("store-write", "store-read")


class ReadyFailed(Exception):
    pass


def fail_when_ready() -> None:
    raise ReadyFailed


@pytest.mark.parametrize("failing", ["prompt templates", "document store", "ready"])
async def test_a_start_that_fails_halfway_leaves_nothing_open(
    failing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever was opened before the failure is closed: the stores' databases (opened first,
    before the engine), the engine where it had started (shut down), the job runner and the
    background tasks. Failing once everything is built ("ready") leaves each of them to
    close."""
    opened: list[StoreDatabases] = []
    open_databases = StoreDatabases.of

    def recording_open(settings: Settings) -> StoreDatabases:
        opened.append(open_databases(settings))
        return opened[-1]

    monkeypatch.setattr(StoreDatabases, "of", recording_open)
    blocking_file = tmp_path / "a file, not a folder"
    blocking_file.write_text("")
    overrides = {
        "prompt templates": {"prompt_templates": str(tmp_path / "missing.toml")},
        "document store": {"document_dir": str(blocking_file)},
        "ready": {},
    }[failing]
    settings = load_settings(
        {
            "served_model_name": "fake-model",
            "quality_guard": False,
            **own_stores(tmp_path),
            **overrides,
        },
        environ={},
    )
    engine = FakeEngine()
    started: list[FakeEngine] = []

    def start_engine() -> FakeEngine:
        started.append(engine)
        return engine

    on_ready = fail_when_ready if failing == "ready" else None
    threads_before = set(threading.enumerate())
    # The failure comes alone or inside Litestar's exception group: its type is checked below.
    with pytest.raises(Exception) as failed:  # noqa: PT011
        async with running(create_app(settings, start_engine, on_ready=on_ready)):
            pass
    # Litestar's lifespan may hand the failure on inside an exception group.
    cause = {
        "prompt templates": TemplateError,
        "document store": FileExistsError,
        "ready": ReadyFailed,
    }[failing]
    assert failed.errisinstance(cause) or failed.group_contains(cause)
    if failing == "document store":  # the databases open before the engine: it never started
        assert started == []
    else:
        assert started == [engine] and engine.shut_down
    assert {task for task in asyncio.all_tasks() if task is not asyncio.current_task()} == set()
    left = [
        thread.name
        for thread in set(threading.enumerate()) - threads_before
        if thread.name.startswith(RESOURCE_THREADS)
    ]
    assert left == []
    (databases,) = opened  # opened first of all, before the engine: none is left open
    assert databases.storage.open == []
