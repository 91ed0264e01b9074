"""The translator page against the real engine: the run's shared `translate-server serve` on the
tiny test model, one translation typed, streamed and finished in the browser."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.server_process import ServerProcess

# Its folder makes it a browser test; the real engine it starts makes it an engine test too.
pytestmark = pytest.mark.engine


def test_a_translation_through_the_page(page: Any, tiny_server: ServerProcess) -> None:
    """Slow where it is the run's first test on the shared tiny-model server: it waits for
    that server to start (20-80 s)."""
    server = tiny_server
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
