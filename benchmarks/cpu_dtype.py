"""Decode speed of one model in float32 and in bfloat16 on this CPU, side by side in one run.

    PYTHONPATH=src python bench/cpu_dtype.py [--model ID] [--rounds 2] [--model-cache-dir DIR]

For each dtype in turn (alternating over `--rounds`), the real engine starts with that dtype
and decodes translation prompts from the bench corpus greedily, ignoring EOS so every answer
has the same length: one request at a time (`--single-tokens` tokens each: the speed one
user sees), then `--batch` requests at once (`--batch-tokens` each: the throughput). Decode
speed is output tokens after the first per second of wall time after the first token, so the
prompt's prefill is left out. Prints one row per dtype and round, then the medians.

Only figures from one run compare: machines differ (AVX2 only, or AVX512-BF16/AMX), and
other work on the machine slows both arms alike only within one run.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from translate_server.inference.engine import SamplingOptions
from translate_server.inference.engine.engine_args import cpu_dtype, cpu_flags
from translate_server.inference.engine.vllm_engine import create_vllm_engine
from translate_server.loadgen.corpus import SENTENCES
from translate_server.settings import DEFAULT_MODEL, EngineSettings
from translate_server.text.languages import resolve_language
from translate_server.translation.prompts.templates import PromptTemplates, build_translation_prompt


async def decode(engine, ids: list[int], tokens: int, request_id: str) -> tuple[float, float, int]:
    """(first token time, last token time, tokens) of one greedy request."""
    options = SamplingOptions(max_tokens=tokens, temperature=0.0, ignore_eos=True)
    first = last = 0.0
    count = 0
    async for output in engine.generate(ids, options, request_id):
        now = time.perf_counter()
        first = first or now
        last = now
        count = output.steps[-1].completion_tokens if output.steps else count
    return first, last, count


async def measure(settings: EngineSettings, args: argparse.Namespace) -> dict[str, float]:
    engine = create_vllm_engine(settings)
    try:
        template = PromptTemplates.load().for_model(settings.model)
        en, de = resolve_language("en"), resolve_language("de")
        prompts = []
        for text in SENTENCES["en"][: max(args.batch, 4)]:
            prompt = build_translation_prompt(text, en, de, template=template)
            prompts.append(
                engine.tokenize_text(prompt)
                if isinstance(prompt, str)
                else engine.tokenize_chat(prompt)
            )
        await decode(engine, prompts[0], 8, "warm-up")
        single = []
        for i in range(3):
            first, last, count = await decode(engine, prompts[i], args.single_tokens, f"s{i}")
            single.append((count - 1) / (last - first))
        started = time.perf_counter()
        results = await asyncio.gather(
            *(
                decode(engine, prompts[i % len(prompts)], args.batch_tokens, f"b{i}")
                for i in range(args.batch)
            )
        )
        ended = max(last for _, last, _ in results)
        first_token = min(first for first, _, _ in results)
        tokens = sum(count for _, _, count in results)
        return {
            "single_tok_s": statistics.median(single),
            "batch_tok_s": (tokens - args.batch) / (ended - first_token),
            "batch_wall_s": ended - started,
        }
    finally:
        engine.shutdown()


async def main(args: argparse.Namespace) -> None:
    flags = cpu_flags()
    print(
        f"CPU bf16 instructions: {sorted(flags & {'avx512_bf16', 'amx_bf16'}) or 'none'}; "
        f"--dtype auto picks {cpu_dtype(flags)}"
    )
    rows: dict[str, list[dict[str, float]]] = {"float32": [], "bfloat16": []}
    for round_ in range(args.rounds):
        order = ["float32", "bfloat16"] if round_ % 2 == 0 else ["bfloat16", "float32"]
        for dtype in order:
            settings = EngineSettings(
                model=args.model,
                dtype=dtype,
                max_model_len=1024,
                max_num_seqs=max(16, args.batch),
                kv_cache_gib=0.5,
                engine_metrics=False,
                model_cache_dir=args.model_cache_dir,
            )
            row = await measure(settings, args)
            rows[dtype].append(row)
            print(
                f"round {round_ + 1} {dtype:9} single {row['single_tok_s']:6.1f} tok/s   "
                f"batch of {args.batch} {row['batch_tok_s']:7.1f} tok/s",
                flush=True,
            )
    print(f"\n{args.model}: medians over {args.rounds} round(s)")
    print(f"{'dtype':9} {'one request (tok/s)':>20} {f'{args.batch} at once (tok/s)':>20}")
    for dtype, measured in rows.items():
        single = statistics.median(r["single_tok_s"] for r in measured)
        batch = statistics.median(r["batch_tok_s"] for r in measured)
        print(f"{dtype:9} {single:20.1f} {batch:20.1f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--model-cache-dir", default=EngineSettings().model_cache_dir)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--single-tokens", type=int, default=128)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--batch-tokens", type=int, default=64)
    asyncio.run(main(parser.parse_args()))
