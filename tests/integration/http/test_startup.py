"""What the app has built by the time it says it is ready (the server freezes its heap then,
so whatever start-up creates later would be walked by every full collection)."""

from __future__ import annotations

import sys

from translate_server.app import create_app
from translate_server.settings import load_settings

from tests.support.fakes import FakeEngine
from tests.support.harness import running


async def test_on_ready_comes_after_the_services_and_the_document_libraries(tmp_path) -> None:
    seen: dict[str, object] = {}
    settings = load_settings({"served_model_name": "fake-model", "quality_guard": False,
                              "document_dir": str(tmp_path)}, environ={})
    app = create_app(settings, FakeEngine, on_ready=lambda: seen.update(
        services=app.state.get("services"),
        libraries={name for name in ("docx", "pptx", "polib", "srt") if name in sys.modules}))
    async with running(app) as client:
        assert (await client.get("/health")).status_code == 200
    services = seen["services"]
    assert services is not None and services.documents is not None  # type: ignore[attr-defined]
    assert seen["libraries"] == {"docx", "pptx", "polib", "srt"}
