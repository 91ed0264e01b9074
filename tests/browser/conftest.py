"""The translator page in a real browser: Playwright for Python driving the system's Chromium
(Debian's `chromium` package; Playwright's own browser download cannot reach its host here).
Where no browser can be started, every test here is skipped with the reason."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest

from tests.support.page_server import serve
from tests.support.prerequisites import missing_prerequisite

# Overridable for machines whose Chromium lives elsewhere.
CHROMIUM_ENV = "TRANSLATE_TEST_CHROMIUM"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")


def chromium_path() -> str:
    path = os.environ.get(CHROMIUM_ENV) or next(
        (found for name in CHROMIUM_NAMES if (found := shutil.which(name))), None
    )
    if path is None:
        missing_prerequisite(
            "browser",
            f"no Chromium to drive (Debian's `chromium`, or {CHROMIUM_ENV} pointing at a "
            "Chromium or Chrome binary)",
        )
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        missing_prerequisite("browser", "Playwright for Python is not installed (make install)")
    executable = chromium_path()
    with sync_playwright() as playwright:
        try:
            launched = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        except Error as exc:
            first = exc.message.splitlines()[0]
            missing_prerequisite("browser", f"Chromium at {executable} does not start: {first}")
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    context.set_default_timeout(15_000)
    try:
        yield context.new_page()
    finally:
        context.close()


Served = Callable[..., str]


@pytest.fixture
def served() -> Iterator[Served]:
    """`served(engine, **settings)`: the base URL of a server for this test only."""
    with ExitStack() as stack:
        yield lambda engine, **overrides: stack.enter_context(serve(engine, **overrides))
