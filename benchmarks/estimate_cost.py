"""What the quality estimate costs the engine: the same translations with and without the
sampled tokens' log probabilities, side by side in one run on the real engine.

    PYTHONPATH=src python -m benchmarks.estimate_cost [--model google/gemma-3-270m] \
        [--texts 64] [--concurrency 64,8] [--rounds 3] [--model-cache-dir DIR]

The texts are human-translated software messages (Django's catalogs, as `bench quality`
draws them), English into German, French, Spanish and Japanese, prompted exactly as
/translate prompts the model (its family's template, stop strings and token budget),
greedy, each answer whole (`final_only`, as the service asks). Per round and concurrency,
each arm in turn (the order alternating between rounds): `plain` asks for no log
probabilities; `estimate` asks for the sampled token's (`logprobs=0`) and computes each
answer's estimate from them (signals, features, the model), which is all the estimate adds
to a translation. Throughput is output tokens per second of wall time with `--concurrency`
requests in flight. Prints every round, then the medians and the estimate's cost in
percent; the greedy answers of both arms are compared (they should be the same text).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from dataclasses import dataclass

from translate_server.inference.engine import SamplingOptions
from translate_server.inference.engine.vllm_engine import create_vllm_engine
from translate_server.settings import DEFAULT_MODEL, EngineSettings
from translate_server.text.languages import resolve_language
from translate_server.translation.estimate.model import estimator_for
from translate_server.translation.estimate.signals import answer_signals, summarize
from translate_server.translation.prompts.templates import (
    PromptTemplates,
    build_translation_prompt,
    translation_stop,
    translation_token_budget,
)

PAIRS = ("en-de", "en-fr", "en-es", "en-ja")
ARMS = ("plain", "estimate")


@dataclass
class Case:
    source: str
    target: str
    ids: list[int]
    options: SamplingOptions


@dataclass
class Arm:
    wall_s: float
    tokens: int
    estimate_s: float  # the Python work of the estimates, in the request's own task
    texts: list[str]


def cases(engine, model: str, count: int) -> list[Case]:  # type: ignore[no-untyped-def]
    from translate_server.quality.datasets import load_sets

    template = PromptTemplates.load().for_model(model)
    sets = load_sets(PAIRS, count // len(PAIRS) + 1, seed=0)
    found = []
    for i in range(count):
        segment = sets[i % len(sets)].segments[i // len(sets)]
        source, target = resolve_language("en"), resolve_language(segment.target_lang)
        prompt = build_translation_prompt(segment.source, source, target, template=template)
        ids = (
            engine.tokenize_text(prompt)
            if isinstance(prompt, str)
            else engine.tokenize_chat(prompt)
        )
        source_tokens = len(engine.tokenize_text(segment.source))
        options = SamplingOptions(
            max_tokens=translation_token_budget(source_tokens, 10_000, 4096),
            temperature=0.0,
            stop=translation_stop(segment.source, template),
            final_only=True,
        )
        found.append(Case(segment.source, target.tag, ids, options))
    return found


async def one(engine, case: Case, logprobs: bool, model: str, rid: str) -> tuple[str, int, float]:  # type: ignore[no-untyped-def]
    options = case.options
    if logprobs:
        options = SamplingOptions(**{**_fields(options), "logprobs": 0})
    text, tokens, lps = "", 0, None
    async for output in engine.generate(case.ids, options, rid):
        for step in output.steps:
            text += step.text
            tokens = step.completion_tokens
            if step.logprobs is not None:
                lps = (lps or ()) + step.logprobs
    spent = 0.0
    if logprobs:
        started = time.perf_counter()
        signals = answer_signals(case.source, text, summarize(lps))
        estimator_for(model).estimate([signals], (), "en", case.target)
        spent = time.perf_counter() - started
    return text, tokens, spent


def _fields(options: SamplingOptions) -> dict[str, object]:
    return {name: getattr(options, name) for name in options.__struct_fields__}


async def run_arm(
    engine, all_cases: list[Case], logprobs: bool, concurrency: int, model: str, tag: str
) -> Arm:  # type: ignore[no-untyped-def]
    gate = asyncio.Semaphore(concurrency)

    async def bounded(i: int, case: Case) -> tuple[str, int, float]:
        async with gate:
            return await one(engine, case, logprobs, model, f"{tag}-{i}")

    started = time.perf_counter()
    results = await asyncio.gather(*(bounded(i, case) for i, case in enumerate(all_cases)))
    wall = time.perf_counter() - started
    return Arm(
        wall,
        sum(tokens for _, tokens, _ in results),
        sum(spent for _, _, spent in results),
        [text for text, _, _ in results],
    )


async def main(args: argparse.Namespace) -> None:
    engine = create_vllm_engine(
        EngineSettings(
            model=args.model,
            max_model_len=2048,
            max_num_seqs=max(args.concurrency),
            kv_cache_gib=1.0,
            engine_metrics=False,
            model_cache_dir=args.model_cache_dir,
        )
    )
    try:
        all_cases = cases(engine, args.model, args.texts)
        await run_arm(engine, all_cases[:8], False, 8, args.model, "warm")  # warm-up
        await run_arm(engine, all_cases[:8], True, 8, args.model, "warm-lp")
        rows: dict[tuple[int, str], list[Arm]] = {}
        for round_ in range(args.rounds):
            for concurrency in args.concurrency:
                order = ARMS if round_ % 2 == 0 else tuple(reversed(ARMS))
                for arm in order:
                    found = await run_arm(
                        engine,
                        all_cases,
                        arm == "estimate",
                        concurrency,
                        args.model,
                        f"r{round_}{arm}{concurrency}",
                    )
                    rows.setdefault((concurrency, arm), []).append(found)
                    print(
                        f"round {round_ + 1} c={concurrency:<3} {arm:8} {found.wall_s:7.2f} s  "
                        f"{found.tokens / found.wall_s:7.1f} tok/s  {found.tokens} tokens  "
                        f"estimates {1000 * found.estimate_s:.1f} ms",
                        flush=True,
                    )
        report(rows, args)
    finally:
        engine.shutdown()


def report(rows: dict[tuple[int, str], list[Arm]], args: argparse.Namespace) -> None:
    print(f"\n{args.model}: {args.texts} texts, medians over {args.rounds} round(s)")
    print(
        f"{'concurrency':>11} {'plain tok/s':>12} {'estimate tok/s':>15} {'cost':>7} "
        f"{'estimates ms/text':>18} {'same answers':>13}"
    )
    for concurrency in args.concurrency:
        plain, estimate = rows[(concurrency, "plain")], rows[(concurrency, "estimate")]
        plain_rate = statistics.median(a.tokens / a.wall_s for a in plain)
        estimate_rate = statistics.median(a.tokens / a.wall_s for a in estimate)
        # Paired per round: each round's arms ran back to back.
        paired = statistics.median(
            1 - (e.tokens / e.wall_s) / (p.tokens / p.wall_s)
            for p, e in zip(plain, estimate, strict=True)
        )
        per_text = statistics.median(1000 * a.estimate_s / args.texts for a in estimate)
        same = sum(
            x == y
            for p, e in zip(plain, estimate, strict=True)
            for x, y in zip(p.texts, e.texts, strict=True)
        )
        total = len(plain) * args.texts
        print(
            f"{concurrency:>11} {plain_rate:12.1f} {estimate_rate:15.1f} {100 * paired:6.1f}% "
            f"{per_text:18.3f} {same:>6}/{total}"
        )


def _counts(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part.strip()]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--model-cache-dir", default=EngineSettings().model_cache_dir)
    parser.add_argument("--texts", type=int, default=64)
    parser.add_argument("--concurrency", type=_counts, default=[64, 8])
    parser.add_argument("--rounds", type=int, default=3)
    asyncio.run(main(parser.parse_args()))
