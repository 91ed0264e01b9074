from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.harness import start_fake_server


@pytest.fixture(scope="module")
def fake_server() -> Iterator[str]:
    process, base = start_fake_server()
    try:
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)
