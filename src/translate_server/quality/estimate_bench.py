"""`translate-server bench estimate FILE` and `bench estimate-eval`: POST /translate/estimate
over translations someone else made.

- `estimate FILE`: a PO or XLIFF file's (or TMX, CSV) existing translations scored, the ones
  to review first printed first: the triage of a vendor's or a volunteer's work.
- `estimate-eval`: whether the estimate tells human translations from damaged ones. The
  quality benchmark's human references (`quality.datasets`) are scored beside three damaged
  versions of each: another entry's reference (swapped), its first half (truncated) and the
  source copied (untranslated); the report gives the AUC (the chance that a reference scores
  above a damaged version) for each kind and for all.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import aiohttp
import msgspec

from translate_server.quality.datasets import DEFAULT_PAIRS, Segment, load_sets

# Pairs per request (the API takes up to 100): small enough to be admitted beside others.
BATCH = 16
# Tries of a batch the server refuses as overloaded (503), a second apart and more.
TRIES = 30
DAMAGES = ("swapped", "truncated", "untranslated")


class Pair(msgspec.Struct, frozen=True):
    source: str
    translation: str
    source_lang: str
    target_lang: str
    label: str  # "reference", or the damage done


def damaged(segments: Sequence[Segment]) -> list[Pair]:
    """Each segment's reference and its damaged versions (a damage that would leave the text
    as it is, as the first half of a one-word text, is left out)."""
    found = []
    for i, segment in enumerate(segments):
        languages = (segment.source_lang, segment.target_lang)
        other = segments[(i + 1) % len(segments)].reference
        words = segment.reference.split()
        half = " ".join(words[: len(words) // 2])
        versions = {
            "reference": segment.reference,
            "swapped": other,
            "truncated": half,
            "untranslated": segment.source,
        }
        for label, text in versions.items():
            if label == "reference" or (text.strip() and text != segment.reference):
                found.append(Pair(segment.source, text, *languages, label))
    return found


def auc(positives: Sequence[float], negatives: Sequence[float]) -> float | None:
    """The chance that a positive scores above a negative (ties count half): Mann-Whitney's
    U over their product."""
    if not positives or not negatives:
        return None
    above = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in positives for n in negatives)
    return round(above / (len(positives) * len(negatives)), 4)


async def score(
    base_url: str,
    pairs: Sequence[Pair],
    *,
    api_key: str | None = None,
    concurrency: int = 2,
    timeout_s: float = 600.0,
) -> list[dict[str, Any]]:
    """Each pair's estimate (`quality_estimate`, `needs_review`, `warnings`), in order; pairs
    of one language pair go together, a hundred per request."""
    url = base_url.rstrip("/") + "/translate/estimate"
    headers = {"content-type": "application/json"}
    if api_key:
        headers["authorization"] = f"Bearer {api_key}"
    batches: list[list[int]] = []
    for i, pair in enumerate(pairs):
        last = batches[-1] if batches else None
        same = last is not None and _languages(pairs[last[0]]) == _languages(pair)
        if last is not None and same and len(last) < BATCH:
            last.append(i)
        else:
            batches.append([i])
    results: list[dict[str, Any]] = [{} for _ in pairs]
    gate = asyncio.Semaphore(concurrency)
    timeout = aiohttp.ClientTimeout(total=timeout_s)
    async with aiohttp.ClientSession(timeout=timeout, headers=headers) as session:

        async def one(batch: list[int]) -> None:
            first = pairs[batch[0]]
            body = {
                "source": [pairs[i].source for i in batch],
                "translation": [pairs[i].translation for i in batch],
                "source_lang": first.source_lang,
                "target_lang": first.target_lang,
            }
            async with gate:
                for attempt in range(TRIES):
                    async with session.post(url, data=msgspec.json.encode(body)) as response:
                        raw = await response.read()
                    if response.status != 503:
                        break
                    await asyncio.sleep(min(1.0 + attempt, 10.0))
            if response.status != 200:
                raise RuntimeError(f"HTTP {response.status}: {raw[:300].decode(errors='replace')}")
            answer = msgspec.json.decode(raw)
            warnings = answer.get("warnings") or [[] for _ in batch]
            for n, i in enumerate(batch):
                results[i] = {
                    "quality_estimate": answer["quality_estimate"][n],
                    "needs_review": answer["needs_review"][n],
                    "warnings": warnings[n],
                }

        await asyncio.gather(*(one(batch) for batch in batches))
    return results


def _languages(pair: Pair) -> tuple[str, str]:
    return pair.source_lang, pair.target_lang


def evaluation(pairs: Sequence[Pair], results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The AUC of references against each damage and all of them, and how often each kind
    is flagged for review."""
    by_label: dict[str, list[float]] = {}
    flagged: dict[str, list[bool]] = {}
    for pair, result in zip(pairs, results, strict=True):
        by_label.setdefault(pair.label, []).append(result["quality_estimate"])
        flagged.setdefault(pair.label, []).append(result["needs_review"])
    references = by_label.get("reference", [])
    damaged_all = [v for label in DAMAGES for v in by_label.get(label, [])]
    return {
        "pairs": len(pairs),
        "auc": auc(references, damaged_all),
        "auc_by_damage": {label: auc(references, by_label.get(label, [])) for label in DAMAGES},
        "needs_review_share": {
            label: round(sum(found) / len(found), 4) for label, found in flagged.items() if found
        },
    }


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    scored = sub.add_parser(
        "estimate",
        help="score a PO, XLIFF, TMX or CSV file's existing translations (/translate/estimate)",
        description="Send each entry's source and translation to /translate/estimate and print "
        "one JSON line per entry, those that need review first, lowest estimate first.",
    )
    scored.add_argument("file", type=Path)
    scored.add_argument("--source-lang", help="where the file does not say (PO files do not)")
    scored.add_argument("--target-lang", help="where the file does not say")
    _add_server(scored)
    scored.add_argument("--all", action="store_true", help="also print those not to review")
    scored.set_defaults(handler=cmd_estimate_file)
    evaluated = sub.add_parser(
        "estimate-eval",
        help="whether /translate/estimate tells human translations from damaged ones (AUC)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    evaluated.add_argument("--pairs", default=",".join(DEFAULT_PAIRS))
    evaluated.add_argument("--segments", type=int, default=100, help="per pair")
    evaluated.add_argument("--seed", type=int, default=0)
    evaluated.add_argument("--output", type=Path, help="also write the report (JSON) here")
    _add_server(evaluated)
    evaluated.set_defaults(handler=cmd_estimate_eval)


def _add_server(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base-url", default="http://127.0.0.1:8000")
    parser.add_argument("--api-key", default=None)


def cmd_estimate_file(args: argparse.Namespace) -> int:
    from translate_server.memory.formats import read_entries

    entries = read_entries(
        args.file.read_bytes(), args.file.name, args.source_lang, args.target_lang
    )
    pairs = [Pair(e.source, e.target, e.source_lang, e.target_lang, "given") for e in entries]
    results = asyncio.run(score(args.base_url, pairs, api_key=args.api_key))
    rows = sorted(
        zip(pairs, results, strict=True),
        key=lambda row: (not row[1]["needs_review"], row[1]["quality_estimate"]),
    )
    flagged = 0
    for pair, result in rows:
        flagged += bool(result["needs_review"])
        if result["needs_review"] or args.all:
            line = {**result, "source": pair.source, "translation": pair.translation}
            print(json.dumps(line, ensure_ascii=False))
    print(f"{flagged} of {len(pairs)} translations need review", file=sys.stderr)
    return 0


def cmd_estimate_eval(args: argparse.Namespace) -> int:
    pairs = [
        pair
        for test_set in load_sets(
            [p.strip() for p in args.pairs.split(",") if p.strip()], args.segments, args.seed
        )
        for pair in damaged(test_set.segments)
    ]
    results = asyncio.run(score(args.base_url, pairs, api_key=args.api_key))
    report = evaluation(pairs, results)
    text = json.dumps(report, indent=2)
    print(text)
    if args.output is not None:
        args.output.write_text(text + "\n")
    return 0
