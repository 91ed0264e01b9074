"""What a quality bench runs: the test sets asked for (`load_all`), each API once and /translate
once per `--candidates` value (`planned_runs`), and every set through every run
(`translate_runs`), timed per run and set."""

from __future__ import annotations

import argparse
import time
from typing import Any, NamedTuple

from translate_server.quality import paragraphs
from translate_server.quality.client import Answer, translate_all
from translate_server.quality.datasets import DEFAULT_PAIRS, TestSet, load_sets


class Run(NamedTuple):
    """One pass of the sets through one API: its label in the tables, the API and the fields
    added to its /translate bodies."""

    label: str
    api: str
    options: dict[str, Any]


def planned_runs(args: argparse.Namespace) -> list[Run]:
    """Each API once; /translate once per `--candidates` value."""
    runs = []
    signals = {"quality_signals": True} if args.quality_signals else {}
    for api in args.api:
        if api != "translate":
            runs.append(Run(api, api, dict(signals) if api == "memory" else {}))
            continue
        for count in args.candidates:
            label = api if count == 1 else f"{api} c={count}"
            extra = {"candidates": count} if count != 1 else {}
            runs.append(Run(label, api, signals | extra))
    return runs


def load_all(args: argparse.Namespace) -> list[TestSet]:
    """The sets asked for, each with its pairs (the sets' own default pairs unless --pairs)."""
    sets: list[TestSet] = []
    for name in dict.fromkeys(args.sets):
        if name == "short":
            sets += load_sets(args.pairs or DEFAULT_PAIRS, args.segments, args.seed)
            continue
        pairs = args.pairs or paragraphs.DEFAULT_PAIRS
        if name == "paragraph":
            sets += paragraphs.load_paragraph_sets(pairs, args.paragraphs, args.seed)
        else:
            sets += paragraphs.load_document_sets(
                pairs, args.documents, args.seed, paragraphs_first=args.paragraphs
            )
    return sets


async def translate_runs(
    args: argparse.Namespace,
    model: str | None,
    sets: list[TestSet],
    bar: Any,
    memories: dict[tuple[str, str], str] | None = None,
) -> tuple[dict[str, list[list[Answer]]], dict[tuple[str, str], float]]:
    """Every set through every run, one run after the other and, within a run, one set
    (all its pairs) after the other; answers per run and set, and each (run, set)'s wall
    time."""
    runs = planned_runs(args)
    answers: dict[str, list[list[Answer]]] = {run.label: [] for run in runs}
    wall_s: dict[tuple[str, str], float] = {}
    names = list(dict.fromkeys(test_set.name for test_set in sets))
    for run in runs:
        for name in names:
            mine = [test_set for test_set in sets if test_set.name == name]
            segments = [segment for test_set in mine for segment in test_set.segments]
            bar.set_postfix(api=run.label, set=name, refresh=False)
            clock = time.perf_counter()
            got = await translate_all(
                args.base_url,
                run.api,
                segments,
                model=model,
                concurrency=args.concurrency,
                max_tokens=args.max_tokens,
                timeout_s=args.timeout,
                on_answer=lambda _: bar.update(1),
                memories=memories,
                memory_threshold=getattr(args, "memory_threshold", None),
                translate_options=run.options,
            )
            wall_s[(run.label, name)] = time.perf_counter() - clock
            start = 0
            for test_set in mine:
                answers[run.label].append(got[start : start + len(test_set.segments)])
                start += len(test_set.segments)
    return answers, wall_s
