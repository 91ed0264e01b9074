"""`translate-server bench estimate-eval` and `bench estimate FILE` against the app over the
engine double behind a real HTTP server: the report's shape, and the damages the estimate
must catch without any help from the model's probabilities (a copied source, a half)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from translate_server.bench import main as bench_main
from translate_server.quality.datasets import load_sets
from translate_server.quality.estimate_bench import auc, damaged

from tests.support.fakes import FakeEngine
from tests.support.harness import served


def test_each_reference_comes_with_its_damaged_versions() -> None:
    segments = load_sets(["en-de"], 4)[0].segments
    pairs = damaged(segments)
    labels = [pair.label for pair in pairs if pair.source == segments[2].source]
    assert labels == ["reference", "swapped", "truncated", "untranslated"]
    swapped = next(p for p in pairs if p.label == "swapped" and p.source == segments[0].source)
    assert swapped.translation == segments[1].reference
    assert auc([0.9, 0.8], [0.1, 0.8]) == 0.875
    assert auc([], [0.1]) is None


async def test_the_evaluation_reports_each_damages_auc(
    make_app, engine: FakeEngine, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    engine.prompt_logprob_of = lambda token, before: -0.1  # a model sure of every word
    output = tmp_path / "report.json"
    async with served(make_app()) as url:
        argv = ["estimate-eval", "--base-url", url, "--pairs", "en-de", "--segments", "10"]
        code = await asyncio.to_thread(bench_main, [*argv, "--output", str(output)])
    assert code == 0
    report = json.loads(output.read_text())
    assert set(report["auc_by_damage"]) == {"swapped", "truncated", "untranslated"}
    # Even with a model equally sure of every word, the guard's findings and the length
    # tell most damaged versions: a copied source is an echo, a half is short.
    assert report["auc"] >= 0.8
    shares = report["needs_review_share"]
    assert shares["untranslated"] == shares["truncated"] == 1.0 > shares["reference"]
    assert all(options.prompt_logprobs for _, _, options in engine.requests)


async def test_a_po_files_translations_are_listed_for_review_worst_first(
    make_app, engine: FakeEngine, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    engine.prompt_logprob_of = lambda token, before: -0.1  # a model sure of every word
    po = tmp_path / "de.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Language: de\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "The meeting has been moved to Thursday afternoon."\n'
        'msgstr "Die Besprechung wurde auf Donnerstagnachmittag verschoben."\n\n'
        'msgid "Delete this account?"\nmsgstr "Delete this account?"\n',
        encoding="utf-8",
    )
    async with served(make_app()) as url:
        argv = ["estimate", str(po), "--source-lang", "en", "--base-url", url, "--all"]
        code = await asyncio.to_thread(bench_main, argv)
    assert code == 0
    out, err = capsys.readouterr()
    # (the server's own log lines share the captured output)
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert [line["source"] for line in lines] == [
        "Delete this account?",
        "The meeting has been moved to Thursday afternoon.",
    ]
    assert lines[0]["needs_review"] and lines[0]["warnings"] == ["echo"]
    assert "1 of 2 translations need review" in err, out
