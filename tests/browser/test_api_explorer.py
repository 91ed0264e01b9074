"""The API explorer at `/docs` in a real Chromium with no way out of the machine: every request
to another host is refused, as on a server without internet access. Swagger UI's files come
from the server itself, the explorer renders, and a request sent from it (with a key given
through its Authorize button) is answered."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from tests.support.fakes import FakeEngine

KEY = "explorer-key"
LOADING_MS = 90_000


def offline(page: Any) -> list[str]:
    """Refuses every request to a host other than the loopback; returns the refused URLs."""
    refused: list[str] = []

    def handle(route: Any) -> None:
        url = route.request.url
        if urlsplit(url).hostname == "127.0.0.1":
            route.continue_()
        else:
            refused.append(url)
            route.abort()

    page.route("**/*", handle)
    return refused


def test_the_explorer_works_offline_and_sends_a_request(page: Any, served: Any) -> None:
    base = served(FakeEngine(), api_key=(KEY,))
    refused = offline(page)
    # Generous: Swagger UI's 1.5 MB script and the inline document take seconds to load on a
    # busy machine (8 s on a 2-core one), routed through the test's handler besides.
    page.goto(f"{base}/docs", wait_until="domcontentloaded", timeout=LOADING_MS)
    page.wait_for_selector(".swagger-ui .info .title", timeout=LOADING_MS)
    assert "translate-server" in page.inner_text(".swagger-ui .info .title")

    # The key, as a person gives it: Authorize, the bearer scheme's field, Authorize, Close.
    page.click(".swagger-ui .auth-wrapper .authorize")
    bearer = page.locator(".auth-container", has=page.locator("#auth-bearer-value"))
    bearer.locator("#auth-bearer-value").fill(KEY)
    bearer.locator("button.authorize").click()
    page.click(".modal-ux .btn-done")

    models = page.locator("#operations-openai-V1ModelsListModels")
    models.locator(".opblock-summary").click()
    models.locator(".try-out__btn").click()
    models.locator("button.execute").click()
    status = models.locator(".live-responses-table .response .response-col_status")
    status.wait_for()
    assert status.inner_text().strip() == "200"  # a 401 without the key
    body = models.locator(".live-responses-table .microlight").first
    assert "fake-model" in body.inner_text()
    assert refused == []
