"""The translator page against the real engine: `translate-server serve` on the tiny test
model, one translation typed, streamed and finished in the browser."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.server_process import ServerProcess, start_tiny
from tests.support.tiny_model import tiny_model_dir

# Its folder makes it a browser test; the real engine it starts makes it an engine test too.
pytestmark = pytest.mark.engine

CACHE = Path(__file__).resolve().parents[2] / ".cache"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = start_tiny(
        tiny_model_dir(CACHE / "test-models"), tmp_path_factory.mktemp("page-server")
    )
    yield process
    process.stop()


def test_a_translation_through_the_page(page: Any, server: ServerProcess) -> None:
    page.goto(f"{server.base_url}/")
    page.wait_for_selector("body[data-ready=true]")
    page.select_option("#source-lang", "en")
    page.select_option("#target-lang", "de")
    page.fill("#source-text", "Good morning, how are you?")
    with page.expect_response("**/translate") as answered:
        page.click("#translate")
    response = answered.value
    assert response.status == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    # The tiny model's weights are random: its words are gibberish, but they arrive, and the
    # final event (usage) ends the stream without an error.
    page.wait_for_function(
        "document.querySelector('#result').getAttribute('aria-busy') === "
        "'false' && document.querySelector('#result-info').textContent "
        ".includes('tokens')",
        timeout=120_000,
    )
    assert page.is_hidden("#error"), page.inner_text("#error")
    assert page.is_enabled("#translate")
