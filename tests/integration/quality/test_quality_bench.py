"""`translate-server bench quality` on a small slice, against the app over the engine double
behind a real HTTP server: the report's shape, and metrics that follow from the answers."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from translate_server.bench import main as bench_main
from translate_server.memory.entries import carry_spans, match_key
from translate_server.quality import paragraphs
from translate_server.quality.client import chat_max_tokens
from translate_server.quality.datasets import load_sets, memory_entries
from translate_server.translation.guard.checks import FAILURE_KINDS

from tests.support.estimate_models import estimate_models
from tests.support.fakes import _SOURCE, _USER, FakeEngine
from tests.support.harness import served

PAIRS = "en-de,en-ja,de-en"
SEGMENTS = 6


def _source_of(prompt: str) -> str:
    """The text a prompt asks to translate: /translate's fenced source, or the chat
    instruction's last paragraph."""
    match = _SOURCE.search(prompt)
    return match.group(1) if match else _USER.findall(prompt)[-1].split("\n\n", 1)[1]


async def _bench(make_app, engine: FakeEngine, out: Path, *extra: str, **app_options) -> dict:
    async with served(make_app(engine, **app_options)) as url:
        code = await asyncio.to_thread(
            bench_main,
            [
                "quality",
                "--base-url",
                url,
                "--pairs",
                PAIRS,
                "--segments",
                str(SEGMENTS),
                "--detector-accuracy",
                "low",
                "--out-dir",
                str(out),
                "--no-progress",
                *extra,
            ],
        )
    assert code == 0
    return json.loads((out / "quality.json").read_text())


async def test_an_echo_engine_is_an_echo_every_time(make_app, tmp_path: Path) -> None:
    engine = FakeEngine(responder=lambda prompt, _: _source_of(prompt))
    report = await _bench(make_app, engine, tmp_path)

    assert report["run"]["apis"] == ["translate", "chat"]
    assert report["run"]["model"] == "fake-model"  # found through /v1/models
    assert report["failure_kinds"] == [kind.value for kind in FAILURE_KINDS]
    assert [s["pair"] for s in report["sets"]] == PAIRS.split(",")
    assert report["sets"][0]["provenance"]["package"] == "Django"
    results = report["results"]
    assert [(r["api"], r["pair"]) for r in results] == [
        (api, pair) for api in ("translate", "chat") for pair in PAIRS.split(",")
    ]
    for result in results:
        assert result["segments"] == SEGMENTS and result["errors"] == 0
        assert set(result["rates"]) == set(report["failure_kinds"])
        assert result["rates"]["echo"] == 1.0
        assert result["rates"]["empty"] == result["rates"]["placeholders_lost"] == 0.0
        assert 0 < result["chrf"] < 60 and 0 <= result["bleu"] < 60
        assert (
            "tok:char" in result["bleu_signature"]
            if result["pair"] == "en-ja"
            else "tok:13a" in result["bleu_signature"]
        )
    assert [m["api"] for m in report["means"]] == ["translate", "chat"]
    assert all(m["rates"]["echo"] == 1.0 and m["pairs"] == 3 for m in report["means"])

    answers = [json.loads(line) for line in (tmp_path / "answers.jsonl").read_text().splitlines()]
    assert len(answers) == 2 * 3 * SEGMENTS
    assert all("echo" in a["failures"] and a["answer"] == a["source"] for a in answers)
    assert (tmp_path / "quality.png").read_bytes()[:4] == b"\x89PNG"
    # The chat requests carried the one-line instruction, greedy and bounded.
    chat = [
        (engine.decode(ids), options)
        for _, ids, options in engine.requests
        if "Answer with the translation only." in engine.decode(ids)
    ]
    assert len(chat) == 3 * SEGMENTS
    for prompt, options in chat:
        assert options.temperature == 0.0
        assert options.max_tokens == chat_max_tokens(_source_of(prompt))
    assert sum("from German to English. Answer" in prompt for prompt, _ in chat) == SEGMENTS


async def test_an_engine_that_knows_the_references_scores_100_with_no_failure(
    make_app, tmp_path: Path
) -> None:
    references = {
        s.source: s.reference
        for test_set in load_sets(["en-ja"], SEGMENTS)
        for s in test_set.segments
    }
    engine = FakeEngine(responder=lambda prompt, _: references[_source_of(prompt)])
    async with served(make_app(engine)) as url:
        code = await asyncio.to_thread(
            bench_main,
            [
                "quality",
                "--base-url",
                url,
                "--api",
                "chat",
                "--pairs",
                "en-ja",
                "--segments",
                str(SEGMENTS),
                "--detector-accuracy",
                "low",
                "--out-dir",
                str(tmp_path),
                "--no-progress",
            ],
        )
    assert code == 0
    (result,) = json.loads((tmp_path / "quality.json").read_text())["results"]
    assert result["chrf"] == 100.0 and result["bleu"] == 100.0
    assert not any(result["counts"].values())


async def test_refused_requests_are_errors_that_score_empty_but_are_no_model_failure(
    make_app, tmp_path: Path
) -> None:
    engine = FakeEngine()
    async with served(make_app(engine, max_tokens=8)) as url:
        code = await asyncio.to_thread(
            bench_main,
            [
                "quality",
                "--base-url",
                url,
                "--api",
                "translate",
                "--pairs",
                "en-de",
                "--segments",
                "3",
                "--max-tokens",
                "9",
                "--detector-accuracy",
                "low",
                "--out-dir",
                str(tmp_path),
                "--no-progress",
            ],
        )
    assert code == 1  # every request failed
    (result,) = json.loads((tmp_path / "quality.json").read_text())["results"]
    assert result["errors"] == 3 and result["chrf"] == 0.0
    assert not any(result["counts"].values())  # the server's refusal is not the model's failure
    line = json.loads((tmp_path / "answers.jsonl").read_text().splitlines()[0])
    assert re.match(r"HTTP 400", line["error"])


async def test_a_base_models_plain_instruction_goes_through_completions(
    make_app, tmp_path: Path
) -> None:
    references = {
        s.source: s.reference
        for test_set in load_sets(["en-de"], SEGMENTS)
        for s in test_set.segments
    }
    line = re.compile(r"^English: (.*)\nGerman:$", re.MULTILINE)
    # Answers as a base model continues "German:": after a space.
    engine = FakeEngine(responder=lambda prompt, _: " " + references[line.search(prompt)[1]])
    async with served(make_app(engine)) as url:
        code = await asyncio.to_thread(
            bench_main,
            [
                "quality",
                "--base-url",
                url,
                "--api",
                "completion",
                "--pairs",
                "en-de",
                "--segments",
                str(SEGMENTS),
                "--detector-accuracy",
                "low",
                "--out-dir",
                str(tmp_path),
                "--no-progress",
            ],
        )
    assert code == 0
    report = json.loads((tmp_path / "quality.json").read_text())
    assert report["run"]["apis"] == ["completion"] and report["run"]["model"] == "fake-model"
    (result,) = report["results"]
    assert result["chrf"] == 100.0 and not any(result["counts"].values())
    prompts = [(engine.decode(ids), options) for _, ids, options in engine.requests]
    assert len(prompts) == SEGMENTS
    for prompt, options in prompts:
        assert prompt.startswith("Translate the following text from English to German.\n")
        assert options.temperature == 0.0 and options.stop == ("\n",)


@pytest.mark.skipif(
    not paragraphs.installed(), reason="gramps (the `quality` extra) is not installed"
)
async def test_paragraph_and_document_sets_report_faithfulness_per_set(
    make_app, tmp_path: Path
) -> None:
    engine = FakeEngine(responder=lambda prompt, _: _source_of(prompt))
    async with served(make_app(engine)) as url:
        code = await asyncio.to_thread(
            bench_main,
            [
                "quality",
                "--base-url",
                url,
                "--api",
                "translate,chat",
                "--pairs",
                "en-de,en-ja",
                "--sets",
                "paragraph,document",
                "--paragraphs",
                "3",
                "--documents",
                "1",
                "--detector-accuracy",
                "low",
                "--out-dir",
                str(tmp_path),
                "--no-progress",
            ],
        )
    assert code == 0
    report = json.loads((tmp_path / "quality.json").read_text())
    assert report["run"]["sets"] == ["paragraph", "document"]
    assert report["run"]["available"]["paragraphs"] == {"paragraphs": 29, "documents": 4}
    assert [(s["set"], s["pair"], s["segments"]) for s in report["sets"]] == [
        ("paragraph", "en-de", 3),
        ("paragraph", "en-ja", 3),
        ("document", "en-de", 1),
        ("document", "en-ja", 1),
    ]
    assert report["sets"][0]["provenance"]["package"] == "gramps"
    assert [(r["api"], r["set"], r["pair"]) for r in report["results"]] == [
        (api, name, pair)
        for api in ("translate", "chat")
        for name in ("paragraph", "document")
        for pair in ("en-de", "en-ja")
    ]
    for result in report["results"]:
        faith = result["faithfulness"]
        # An echo of English is a bit shorter than German and twice as long as Japanese.
        low, high = (0.6, 1.0) if result["pair"] == "en-de" else (1.5, 3.5)
        assert low < faith["length_ratio_median"] < high
        assert faith["omission_rate"] == 0.0 and faith["omission_flagged"] is None
    means = {(m["api"], m["set"]): m for m in report["means"]}
    assert list(means) == [
        (api, name) for api in ("translate", "chat") for name in ("paragraph", "document")
    ]
    assert all(m["seconds_per_1k_chars"] >= 0 for m in means.values())
    # No answer carried a warning (the guard is off): every echo is an unflagged failure.
    assert all(m["faithfulness"]["unflagged_failure_rate"] == 1.0 for m in means.values())
    answers = [json.loads(line) for line in (tmp_path / "answers.jsonl").read_text().splitlines()]
    assert {a["set"] for a in answers} == {"paragraph", "document"}
    assert all(a["warnings"] == [] for a in answers if a["api"] == "chat")
    documents = [a for a in answers if a["set"] == "document"]
    assert all(a["source"].count("\n\n") >= 3 for a in documents)


async def test_the_guards_warnings_are_recorded_and_flag_its_failures(
    make_app, tmp_path: Path
) -> None:
    engine = FakeEngine(responder=lambda prompt, _: _source_of(prompt))
    async with served(make_app(engine, quality_guard=True)) as url:
        code = await asyncio.to_thread(
            bench_main,
            [
                "quality",
                "--base-url",
                url,
                "--api",
                "translate",
                "--pairs",
                "en-de",
                "--segments",
                str(SEGMENTS),
                "--detector-accuracy",
                "low",
                "--out-dir",
                str(tmp_path),
                "--no-progress",
            ],
        )
    assert code == 0
    answers = [json.loads(line) for line in (tmp_path / "answers.jsonl").read_text().splitlines()]
    warned = [a for a in answers if a["warnings"]]
    assert warned and all(set(a["warnings"]) <= {k.value for k in FAILURE_KINDS} for a in warned)
    (result,) = json.loads((tmp_path / "quality.json").read_text())["results"]
    unwarned_failures = sum(bool(a["failures"]) and not a["warnings"] for a in answers)
    assert result["faithfulness"]["unflagged_failure_rate"] == round(
        unwarned_failures / SEGMENTS, 4
    )


async def test_memory_runs_the_set_without_and_with_a_memory_of_the_other_messages(
    make_app, engine: FakeEngine, tmp_path: Path
) -> None:
    report = await _bench(
        make_app, engine, tmp_path, "--memory", "--pairs", "en-de", "--segments", "12"
    )
    assert report["run"]["apis"] == ["translate", "memory"]
    (memory,) = report["memory"]
    test_set = load_sets(["en-de"], 12, 0)[0]
    held_out = {segment.id for segment in test_set.segments}
    # Duplicates merged (by the source with placeholders masked): the later translation kept.
    known = {match_key(s): (s, t) for s, t in memory_entries("en-de", held_out)}
    assert memory["memory_entries"] == len(known) and memory["segments"] == 12
    answers = [
        json.loads(line)
        for line in (tmp_path / "answers.jsonl").read_text().splitlines()
        if json.loads(line)["api"] == "memory"
    ]
    for answer in answers:
        if answer["memory_match"] == "exact":
            # Only a message the rest of the catalogs hold is answered from the memory (with
            # the message's own placeholders).
            source, target = known[match_key(answer["source"])]
            assert answer["answer"] == carry_spans(source, target, answer["source"])
        else:
            assert match_key(answer["source"]) not in known
    assert memory["exact"] == sum(a["memory_match"] == "exact" for a in answers)
    assert memory["fuzzy"] == sum(a["memory_match"] == "fuzzy" for a in answers) > 0
    # The engine saw the memory's examples (earlier turns) only for the memory's run.
    turns = [engine.decode(ids).count("<|im_start|>user") for _, ids, _ in engine.requests]
    assert max(turns) > 1 and turns.count(1) >= 12


async def test_memory_threshold_reaches_every_request(
    make_app, engine: FakeEngine, tmp_path: Path
) -> None:
    report = await _bench(
        make_app,
        engine,
        tmp_path,
        *("--memory", "--api", "memory", "--memory-threshold", "100"),
        *("--pairs", "en-de", "--segments", "12"),
    )
    assert report["run"]["apis"] == ["memory"] and report["run"]["memory_threshold"] == 100
    (memory,) = report["memory"]
    # At 100 only the same source is close enough: exact matches, no examples.
    assert memory["fuzzy"] == 0 and memory["exact"] > 0
    assert all(engine.decode(ids).count("<|im_start|>user") == 1 for _, ids, _ in engine.requests)


async def test_the_estimate_is_scored_and_candidates_run_side_by_side(
    make_app, tmp_path: Path
) -> None:
    # Right answers the double is sure of, echoes it doubts: the estimate should rank them.
    references = {
        s.source: s.reference
        for test_set in load_sets(["en-de"], SEGMENTS)
        for s in test_set.segments
    }

    def half_right(prompt: str, _: object) -> str:
        source = _source_of(prompt)
        return references[source] if len(source) % 2 else source

    engine = FakeEngine(responder=half_right)
    engine.logprob_of = lambda answer: -0.05 if answer in references.values() else -3.0
    report = await _bench(
        make_app,
        engine,
        tmp_path,
        "--api",
        "translate",
        "--pairs",
        "en-de",
        "--candidates",
        "1,2",
        "--quality-signals",
        # The double's own estimate model: its log probabilities, whatever the bundled
        # models were last fitted to.
        quality_estimate_models=estimate_models(tmp_path),
    )
    assert report["run"]["runs"] == ["translate", "translate c=2"]
    rows = {(row["api"], row["pair"]): row for row in report["estimate"]}
    row = rows[("translate", "en-de")]
    assert row["answers"] == SEGMENTS and row["spearman"] > 0.5
    assert row["unflagged_rate"] == 0.0  # every echo said so (a warning, or needs_review)
    assert row["recall"] == 1.0
    assert [c["run"] for c in report["candidates"]] == ["translate", "translate c=2"]
    assert all(c["wall_s"] >= 0 for c in report["candidates"])
    answers = [json.loads(line) for line in (tmp_path / "answers.jsonl").read_text().splitlines()]
    assert all("quality_signals" in a and "sentence_chrf" in a for a in answers)
    # The second run asked for two candidates: greedy, then one sampled choice per text.
    assert any(options.n == 1 and options.temperature > 0 for _, _, options in engine.requests)
