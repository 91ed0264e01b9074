"""What the document tests share."""

from __future__ import annotations

import time
from types import SimpleNamespace

import deepl
import pytest


@pytest.fixture
def quick_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    """DeepL's client waits 5 s between two looks at a document's status, whatever the
    status says; here it looks again after 20 ms (its own module's `time` only)."""
    monkeypatch.setattr(
        deepl.translator,
        "time",
        SimpleNamespace(time=time.time, sleep=lambda seconds: time.sleep(min(seconds, 0.02))),
    )
