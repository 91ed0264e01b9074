"""`translate-server bench quality`: test sets of human translations through `/translate` and
through a plain chat instruction; chrF, BLEU, failure rates and faithfulness per set and pair
(docs/quality.md)."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import msgspec

from translate_server.quality import paragraphs
from translate_server.quality.client import APIS, Answer
from translate_server.quality.datasets import DEFAULT_PAIRS, TestSet, available
from translate_server.quality.estimate_report import (
    AnswerScore,
    answer_scores,
    candidates_table,
    estimate_section,
)
from translate_server.quality.memory_bench import add_memory_arguments, check_memory_args
from translate_server.quality.runs import load_all, planned_runs, translate_runs
from translate_server.translation.protocol import MAX_CANDIDATES

SETS = ("short", "paragraph", "document", "localization")


def _list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _counts_list(text: str) -> list[int]:
    try:
        return [int(part) for part in _list(text)]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"a list of numbers: {text!r}") from exc


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "quality",
        help="translation quality (chrF, BLEU, failure rates) on human translations",
        description="Translate parallel test sets drawn from gettext catalogs (Django's short "
        "messages; Gramps' paragraphs, alone or joined into documents) through /translate and "
        "through /v1/chat/completions (or a base model's /v1/completions) with a one-line "
        "instruction, and score the answers against the human translations.",
    )
    parser.add_argument("--base-url", default="http://127.0.0.1:8000")
    parser.add_argument(
        "--api",
        type=_list,
        default=["translate", "chat"],
        help="translate, chat, completion (a base model's plain instruction "
        "through /v1/completions), comma-separated (default translate,chat)",
    )
    parser.add_argument(
        "--model",
        default=None,
        help="model name for chat and completion (default: from /v1/models)",
    )
    _add_set_arguments(parser)
    parser.add_argument("--concurrency", type=int, default=16, help="requests in flight")
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=None,
        help="max_tokens for every request (default: /translate decides; chat "
        "gets 3 x (characters / 4) + 16)",
    )
    parser.add_argument("--timeout", type=float, default=300.0, help="per request, seconds")
    parser.add_argument(
        "--detector-accuracy",
        choices=("low", "high"),
        default="high",
        help="Lingua accuracy for the wrong-language check (default high)",
    )
    parser.add_argument(
        "--out-dir",
        default="quality-results",
        help="where quality.json, quality.png and answers.jsonl go",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--candidates",
        type=_counts_list,
        default=[1],
        help="/translate's `candidates`, comma-separated: one /translate run per value, "
        "chrF and time side by side (default 1)",
    )
    parser.add_argument(
        "--quality-signals",
        action="store_true",
        help="ask /translate for what each quality estimate was computed from, and keep it "
        "in answers.jsonl (the input of `python -m translate_server.quality.estimate_fit`)",
    )
    add_memory_arguments(parser)
    parser.set_defaults(handler=cmd_quality)


def _add_set_arguments(parser: argparse.ArgumentParser) -> None:
    """What is translated: the test sets, their pairs, how much of each, and the seed that
    draws them (`load_all`)."""
    parser.add_argument(
        "--sets",
        type=_list,
        default=["short"],
        help="test sets: short (Django's messages), paragraph, document "
        "(Gramps' paragraphs, alone or joined), localization (a catalog of each localization "
        "format: placeholders, plurals, chrF per format), comma-separated (default short)",
    )
    parser.add_argument(
        "--pairs",
        type=_list,
        default=None,
        help=f"language pairs of every set (default: short {','.join(DEFAULT_PAIRS)}"
        f"; paragraph and document {','.join(paragraphs.DEFAULT_PAIRS)})",
    )
    parser.add_argument(
        "--segments", type=int, default=100, help="short messages per pair (default 100)"
    )
    parser.add_argument(
        "--paragraphs", type=int, default=12, help="paragraphs per pair (default 12)"
    )
    parser.add_argument("--documents", type=int, default=2, help="documents per pair (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="same seed, same segments (default 0)")


def _check_args(args: argparse.Namespace) -> None:
    check_memory_args(args)
    unknown = [api for api in args.api if api not in APIS]
    if unknown or not args.api:
        raise SystemExit(f"--api takes {', '.join(APIS)}; got {', '.join(args.api) or 'nothing'}")
    unknown = [name for name in args.sets if name not in SETS]
    if unknown or not args.sets:
        raise SystemExit(f"--sets takes {', '.join(SETS)}; got {', '.join(args.sets) or 'nothing'}")
    if min(args.segments, args.paragraphs, args.documents, args.concurrency) < 1:
        raise SystemExit("--segments, --paragraphs, --documents and --concurrency must be positive")
    if not args.candidates or not all(1 <= count <= MAX_CANDIDATES for count in args.candidates):
        raise SystemExit(f"--candidates takes numbers from 1 to {MAX_CANDIDATES}")


def run_quality(args: argparse.Namespace) -> dict[str, Any]:
    """Translate, score and write the outputs; returns the JSON document."""
    from tqdm import tqdm

    from translate_server.quality.report import build_document, format_table, plot, write_json
    from translate_server.quality.scoring import mean_scores

    _check_args(args)
    if "localization" in args.sets:
        localization = _localization(args)
        args.sets = [name for name in args.sets if name != "localization"]
        if not args.sets:
            return localization
    try:
        sets = load_all(args)
    except ValueError as exc:
        raise SystemExit(str(exc)) from exc
    model = _model_asked(args)
    memories, memory_sizes = _memories(args, sets)
    started, clock = time.time(), time.perf_counter()
    labels = [run.label for run in planned_runs(args)]
    total = len(labels) * sum(len(s.segments) for s in sets)
    with tqdm(
        total=total, desc="translating", unit="seg", file=sys.stderr, disable=args.no_progress
    ) as bar:
        answers, set_wall_s = asyncio.run(translate_runs(args, model, sets, bar, memories))
    wall_s = time.perf_counter() - clock
    names = list(dict.fromkeys(test_set.name for test_set in sets))  # load_all groups them

    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    scores, estimated = _score(args, sets, answers, out / "answers.jsonl")
    means = mean_scores(scores, set_wall_s)
    run = _run_fields(args, model, sets, started, wall_s, set_wall_s)
    document = build_document(
        run | {"available": _available(names)}, [_set_fields(s) for s in sets], scores, means
    )
    document["estimate"], estimate_table = estimate_section(estimated)
    candidates = _candidates(document, means, set_wall_s, labels, names)
    memory_table = None
    if memories is not None:
        from translate_server.quality.memory_bench import memory_section

        document["memory"], memory_table = memory_section(sets, memory_sizes, answers["memory"])
    write_json(out / "quality.json", document)
    plot(
        scores,
        means,
        out / "quality.png",
        title=f"{model or args.base_url}: {', '.join(_counts(args, names))} per pair",
    )
    tables = [format_table(scores, means), estimate_table if document["estimate"] else None]
    print("\n\n".join(table for table in [*tables, candidates, memory_table] if table))
    print(
        f"translated in {wall_s:.0f} s; wrote {out}/quality.json, quality.png, answers.jsonl",
        file=sys.stderr,
    )
    return document


def _memories(
    args: argparse.Namespace, sets: list[Any]
) -> tuple[dict[tuple[str, str], str] | None, dict[str, int]]:
    """The memory arm's memories, made on the server (none where it is not asked for)."""
    if "memory" not in args.api:
        return None, {}
    from translate_server.quality.memory_bench import make_memories

    return asyncio.run(make_memories(args.base_url, sets))


def _localization(args: argparse.Namespace) -> dict[str, Any]:
    """The localization set through /translate, scored per format; written and printed."""
    from translate_server.quality import localization

    scores = asyncio.run(
        localization.run_localization(localization.http_translator(args.base_url, args.timeout))
    )
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    document = {"localization": msgspec.to_builtins(scores)}
    (out / "localization.json").write_bytes(msgspec.json.format(msgspec.json.encode(document)))
    print(localization.format_table(scores))
    return document | {"results": []}


def _model_asked(args: argparse.Namespace) -> str | None:
    """The model chat and completion requests name: --model, else the served one (/translate
    and the memory names none)."""
    if set(args.api) - {"translate", "memory"} and args.model is None:
        from translate_server.loadgen.client import discover_model

        return asyncio.run(discover_model(args.base_url))
    named: str | None = args.model
    return named


def _candidates(
    document: dict[str, Any],
    means: list[Any],
    set_wall_s: dict[tuple[str, str], float],
    labels: list[str],
    names: list[str],
) -> str | None:
    """With more than one /translate run (`--candidates`): their chrF and time side by side,
    put in `document` and as a table; else None."""
    translate_labels = [label for label in labels if label.startswith("translate")]
    if len(translate_labels) < 2:
        return None
    document["candidates"] = [
        {"run": label, "set": name, "wall_s": round(set_wall_s[(label, name)], 1)}
        | {"chrf": next(m.chrf for m in means if m.api == label and m.set == name)}
        for label in translate_labels
        for name in names
    ]
    return candidates_table(means, set_wall_s, translate_labels)


def _run_fields(
    args: argparse.Namespace,
    model: str | None,
    sets: list[TestSet],
    started: float,
    wall_s: float,
    set_wall_s: dict[tuple[str, str], float],
) -> dict[str, Any]:
    """What quality.json says of the run: the server, what was asked, and how long it took."""
    return {
        "base_url": args.base_url,
        "apis": args.api,
        "runs": [run.label for run in planned_runs(args)],
        "candidates": args.candidates,
        "model": model,
        "sets": list(dict.fromkeys(s.name for s in sets)),
        "pairs": list(dict.fromkeys(s.pair for s in sets)),
        "segments_per_pair": args.segments,
        "paragraphs_per_pair": args.paragraphs,
        "documents_per_pair": args.documents,
        "seed": args.seed,
        "concurrency": args.concurrency,
        "max_tokens": args.max_tokens,
        "detector_accuracy": args.detector_accuracy,
        "memory_threshold": getattr(args, "memory_threshold", None),
        "started_at": started,
        "translation_wall_s": round(wall_s, 1),
        "set_wall_s": {f"{api}/{name}": round(t, 1) for (api, name), t in set_wall_s.items()},
        "argv": sys.argv[1:],
    }


def _set_fields(test_set: TestSet) -> dict[str, Any]:
    """What quality.json says of one set of one pair: its size and where it comes from."""
    return {
        "set": test_set.name,
        "pair": test_set.pair,
        "segments": len(test_set.segments),
        "source_chars": sum(len(segment.source) for segment in test_set.segments),
        "kinds": _kinds(test_set),
        "provenance": msgspec.to_builtins(test_set.provenance),
    }


def _score(
    args: argparse.Namespace,
    sets: list[TestSet],
    answers: dict[str, list[list[Answer]]],
    log_path: Path,
) -> tuple[list[Any], dict[tuple[str, str, str], list[AnswerScore]]]:
    """Every answer judged and scored per run, set and pair; each written to `log_path`.
    Beside the scores, each answer as the quality estimate's report reads it."""
    from translate_server.quality.faithfulness import prompt_examples
    from translate_server.quality.scoring import judge_answers, score_pair
    from translate_server.text.detection import LanguageDetection
    from translate_server.translation.guard.checks import LanguageJudge

    judge = LanguageJudge(LanguageDetection(args.detector_accuracy), args.detector_accuracy)
    scores = []
    estimated: dict[tuple[str, str, str], list[AnswerScore]] = {}
    with log_path.open("wb") as log:
        for api in answers:
            for test_set, got in zip(sets, answers[api], strict=True):
                verdicts = judge_answers(test_set.segments, got, judge)
                read = answer_scores(test_set, got, verdicts)
                estimated[(api, test_set.name, test_set.pair)] = read
                by_segment = iter(read)
                scores.append(
                    score_pair(
                        api,
                        test_set.pair,
                        test_set.segments,
                        got,
                        verdicts,
                        set_name=test_set.name,
                        examples=prompt_examples(),
                    )
                )
                for segment, answer, verdict in zip(test_set.segments, got, verdicts, strict=True):
                    judged = next(by_segment) if answer.error is None else None
                    record = {
                        "api": api,
                        "set": test_set.name,
                        "pair": test_set.pair,
                        **msgspec.to_builtins(segment),
                        "answer": answer.text,
                        "finish_reason": answer.finish_reason,
                        "warnings": list(answer.warnings),
                        "latency_s": answer.latency_s,
                        "error": answer.error,
                        "memory_match": answer.memory_match,
                        "failures": list(verdict.failures),
                        "lost_placeholders": list(verdict.lost_placeholders),
                        "detected_language": verdict.detected_language,
                        "sentence_chrf": None if judged is None else round(judged.chrf, 2),
                        "bad": None if judged is None else judged.bad,
                        "quality_estimate": answer.quality_estimate,
                        "needs_review": answer.needs_review,
                    }
                    if answer.quality_signals is not None:
                        record["quality_signals"] = answer.quality_signals
                    log.write(msgspec.json.encode(record) + b"\n")
    return scores, estimated


def _available(names: list[str]) -> dict[str, Any]:
    """What each set is drawn from: the short set's messages by kind, the paragraphs and the
    documents they make."""
    found: dict[str, Any] = {}
    if "short" in names:
        found |= available()  # at the top, as before there were other sets
    if {"paragraph", "document"} & set(names):
        found["paragraphs"] = paragraphs.available()
    return found


def _counts(args: argparse.Namespace, names: list[str]) -> list[str]:
    counts = {
        "short": f"{args.segments} messages",
        "paragraph": f"{args.paragraphs} paragraphs",
        "document": f"{args.documents} documents",
    }
    return [counts[name] for name in names]


def _kinds(test_set: TestSet) -> dict[str, int]:
    counts: dict[str, int] = {}
    for segment in test_set.segments:
        counts[segment.kind] = counts.get(segment.kind, 0) + 1
    return counts


def cmd_quality(args: argparse.Namespace) -> int:
    document = run_quality(args)
    failed = sum(score["errors"] for score in document["results"])
    asked = sum(score["segments"] for score in document["results"])
    return 1 if asked and failed == asked else 0
