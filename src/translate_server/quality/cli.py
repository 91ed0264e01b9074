"""`translate-server bench quality`: a test set of human translations through `/translate` and
through a plain chat instruction; chrF, BLEU and failure rates per pair (docs/quality.md)."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import msgspec

from translate_server.quality.client import APIS, Answer, translate_all
from translate_server.quality.datasets import DEFAULT_PAIRS, TestSet, available, load_sets


def _list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "quality",
        help="translation quality (chrF, BLEU, failure rates) on human translations",
        description="Translate a parallel test set drawn from Django's gettext catalogs through "
        "/translate and through /v1/chat/completions (or a base model's /v1/completions) with a "
        "one-line instruction, and score "
        "the answers against the human translations.",
    )
    parser.add_argument("--base-url", default="http://127.0.0.1:8000")
    parser.add_argument("--api", type=_list, default=["translate", "chat"],
                        help="translate, chat, completion (a base model's plain instruction "
                        "through /v1/completions), comma-separated (default translate,chat)")
    parser.add_argument("--model", default=None,
                        help="model name for chat and completion (default: from /v1/models)")
    parser.add_argument("--pairs", type=_list, default=list(DEFAULT_PAIRS),
                        help=f"language pairs (default {','.join(DEFAULT_PAIRS)})")
    parser.add_argument("--segments", type=int, default=100, help="segments per pair (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="same seed, same segments (default 0)")
    parser.add_argument("--concurrency", type=int, default=16, help="requests in flight")
    parser.add_argument("--max-tokens", type=int, default=None,
                        help="max_tokens for every request (default: /translate decides; chat "
                        "gets 3 x (characters / 4) + 16)")
    parser.add_argument("--timeout", type=float, default=300.0, help="per request, seconds")
    parser.add_argument("--detector-accuracy", choices=("low", "high"), default="high",
                        help="Lingua accuracy for the wrong-language check (default high)")
    parser.add_argument("--out-dir", default="quality-results",
                        help="where quality.json, quality.png and answers.jsonl go")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(handler=cmd_quality)


def _check_args(args: argparse.Namespace) -> None:
    unknown = [api for api in args.api if api not in APIS]
    if unknown or not args.api:
        raise SystemExit(f"--api takes {', '.join(APIS)}; got {', '.join(args.api) or 'nothing'}")
    if args.segments < 1 or args.concurrency < 1:
        raise SystemExit("--segments and --concurrency must be positive")


async def _translate(args: argparse.Namespace, model: str | None, sets: list[TestSet],
                     bar: Any) -> dict[str, list[list[Answer]]]:
    """Every set through every API, one API after the other; answers per API and set."""
    segments = [segment for test_set in sets for segment in test_set.segments]
    answers: dict[str, list[list[Answer]]] = {}
    for api in args.api:
        bar.set_postfix(api=api, refresh=False)
        got = await translate_all(
            args.base_url, api, segments, model=model, concurrency=args.concurrency,
            max_tokens=args.max_tokens, timeout_s=args.timeout,
            on_answer=lambda _: bar.update(1))
        answers[api], start = [], 0
        for test_set in sets:
            answers[api].append(got[start:start + len(test_set.segments)])
            start += len(test_set.segments)
    return answers


def run_quality(args: argparse.Namespace) -> dict[str, Any]:
    """Translate, score and write the outputs; returns the JSON document."""
    from tqdm import tqdm

    from translate_server.quality.report import build_document, format_table, plot, write_json
    from translate_server.quality.scoring import judge_answers, mean_scores, score_pair
    from translate_server.translation.checks import LanguageJudge
    from translate_server.translation.detection import LanguageDetection

    _check_args(args)
    try:
        sets = load_sets(args.pairs, args.segments, args.seed)
    except ValueError as exc:
        raise SystemExit(str(exc)) from exc
    model = args.model
    if set(args.api) - {"translate"} and model is None:
        from translate_server.loadgen.client import discover_model

        model = asyncio.run(discover_model(args.base_url))
    started, clock = time.time(), time.perf_counter()
    total = len(args.api) * sum(len(s.segments) for s in sets)
    with tqdm(total=total, desc="translating", unit="seg", file=sys.stderr,
              disable=args.no_progress) as bar:
        answers = asyncio.run(_translate(args, model, sets, bar))
    wall_s = time.perf_counter() - clock

    judge = LanguageJudge(LanguageDetection(args.detector_accuracy), args.detector_accuracy)
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    scores = []
    with (out / "answers.jsonl").open("wb") as log:
        for api in args.api:
            for test_set, got in zip(sets, answers[api], strict=True):
                verdicts = judge_answers(test_set.segments, got, judge)
                scores.append(score_pair(api, test_set.pair, test_set.segments, got, verdicts))
                for segment, answer, verdict in zip(test_set.segments, got, verdicts, strict=True):
                    record = {"api": api, "pair": test_set.pair, **msgspec.to_builtins(segment),
                              "answer": answer.text, "finish_reason": answer.finish_reason,
                              "error": answer.error, "failures": list(verdict.failures),
                              "lost_placeholders": list(verdict.lost_placeholders),
                              "detected_language": verdict.detected_language}
                    log.write(msgspec.json.encode(record) + b"\n")
    means = mean_scores(scores)
    run = {"base_url": args.base_url, "apis": args.api, "model": model, "pairs": args.pairs,
           "segments_per_pair": args.segments, "seed": args.seed,
           "concurrency": args.concurrency, "max_tokens": args.max_tokens,
           "detector_accuracy": args.detector_accuracy, "started_at": started,
           "translation_wall_s": round(wall_s, 1), "argv": sys.argv[1:]}
    set_info = [{"pair": s.pair, "segments": len(s.segments),
                 "kinds": _kinds(s), "provenance": msgspec.to_builtins(s.provenance)}
                for s in sets]
    document = build_document(run | {"available": available()}, set_info, scores, means)
    write_json(out / "quality.json", document)
    plot(scores, means, out / "quality.png",
         title=f"{model or args.base_url}: {args.segments} segments per pair")
    print(format_table(scores, means))
    print(f"translated in {wall_s:.0f} s; wrote {out}/quality.json, quality.png, answers.jsonl",
          file=sys.stderr)
    return document


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
