"""`translate-server bench write` against the app over an engine double that answers a third
of the learners' sentences with a preamble alone and a third with a reply around the
correction: before the guard those are not rewrites, after it every answer is."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from translate_server.bench import main as bench_main
from translate_server.quality.write_bench import load_sentences

from tests.support.fakes import _SOURCE, FakeEngine
from tests.support.harness import served

CORRECTIONS = dict(load_sentences())
ORDER = list(CORRECTIONS)


def misbehaving(prompt: str, options) -> str:  # type: ignore[no-untyped-def]
    found = _SOURCE.search(prompt)
    assert found is not None
    text = found.group(1)
    correction = CORRECTIONS[text]
    if options.temperature > 0:
        return correction
    kind = ORDER.index(text) % 3
    if kind == 0:
        return "The corrected text is:"
    if kind == 1:
        return f"I'm happy to help! {correction}"
    return correction


async def test_the_share_of_rewrites_before_and_after_the_guard(make_app, tmp_path: Path) -> None:
    output = tmp_path / "write.json"
    async with served(make_app(FakeEngine(responder=misbehaving))) as url:
        argv = ["write", "--base-url", url, "--task", "correct", "--output", str(output)]
        assert await asyncio.to_thread(bench_main, argv) == 0
    report = json.loads(output.read_text())
    assert report["sentences"] == 100
    before, after = report["before"], report["after"]
    assert before["rewrites"] == 0.33
    assert before["not_rewrites"] == {"preamble": 34, "scaffolding": 33}
    assert after["rewrites"] == 1.0 and after["equal_to_correction"] == 1.0
