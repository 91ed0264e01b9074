"""The engine's limit: a workload through vLLM's AsyncLLMEngine in this process, no HTTP.

Run as a subprocess by `bench compare` (``python -m benchmarks.engine_arm ...``).
Each item gets exactly the work `/translate` gives the engine: the service's translation
prompt rendered by the model's chat template, greedy decoding, the same stop strings and the
item's `max_tokens`. Requests are driven closed-loop like the HTTP arms, outputs stream as
deltas (with `--no-stream`, each request gets only its final output, as the non-streaming HTTP
arms' servers ask the engine for), and the process's CPU time (and its engine children's) over
the measured window is written with the results as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import sys
import time
import uuid
from collections.abc import Sequence
from typing import Any

from benchmarks.cpu import CpuMeter
from translate_server.loadgen.chat_prompt import default_messages, default_stop
from translate_server.loadgen.stats import RequestResult, summarize
from translate_server.loadgen.workload import WorkItem, warmup_items
from translate_server.server.heap import freeze_startup_heap


def _token_ids(tokenizer: Any, messages: list[dict[str, str]]) -> list[int]:
    ids = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
    if isinstance(ids, dict) or hasattr(ids, "input_ids"):
        ids = ids["input_ids"]
    return list(ids)


async def drive(
    engine: Any,
    tokenizer: Any,
    items: Sequence[WorkItem],
    *,
    concurrency: int,
    requests: int,
    max_model_len: int,
    stream: bool = True,
) -> tuple[list[RequestResult], float]:
    from vllm import SamplingParams
    from vllm.inputs import TokensPrompt
    from vllm.sampling_params import RequestOutputKind

    prepared = []
    for item in items[:requests]:  # only what is sent: a warm-up sends a few
        ids = _token_ids(tokenizer, default_messages(item.text, item.source_lang, item.target_lang))
        params = SamplingParams(
            temperature=0.0,
            max_tokens=max(1, min(item.max_tokens, max_model_len - len(ids))),
            stop=[] if item.exact_output else default_stop(item.text),
            ignore_eos=item.exact_output,
            output_kind=RequestOutputKind.DELTA if stream else RequestOutputKind.FINAL_ONLY,
        )
        prepared.append((ids, params))

    results: list[RequestResult] = []
    next_index = 0

    async def one(ids: list[int], params: Any) -> RequestResult:
        start = time.perf_counter()
        result = RequestResult(ok=False, status=0, start=start, latency_s=0.0)
        tokens = 0
        try:
            async for output in engine.generate(
                TokensPrompt(prompt_token_ids=ids), params, uuid.uuid4().hex
            ):
                completion = output.outputs[0]
                # Timed as an HTTP client times a stream: by the text it sees. A token can
                # bring none: vLLM holds back the end of the text while it could still
                # become a stop string.
                if stream and completion.text:
                    result.content_arrived(time.perf_counter())
                tokens += len(completion.token_ids)
            result.ok, result.status = True, 200
        except Exception as exc:  # noqa: BLE001 - a failure is a measurement
            result.error = f"{type(exc).__name__}: {exc}"[:200]
        result.latency_s = time.perf_counter() - start
        result.prompt_tokens, result.output_tokens = len(ids), tokens
        result.usage_reported = True
        return result

    async def worker() -> None:
        nonlocal next_index
        while next_index < requests:
            ids, params = prepared[next_index % len(prepared)]
            next_index += 1
            results.append(await one(ids, params))

    began = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(min(concurrency, requests))))
    return results, time.perf_counter() - began


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    from vllm import AsyncEngineArgs, AsyncLLMEngine

    from translate_server.loadgen.cli import workload_from_args

    _, items = workload_from_args(args)
    engine_args: dict[str, Any] = {
        "model": args.model,
        "served_model_name": args.served_model_name,
        "dtype": args.dtype,
        "max_model_len": args.max_model_len,
        "max_num_seqs": args.max_num_seqs,
        "enforce_eager": True,
        # As the service runs the engine unless told otherwise: statistics on.
        "disable_log_stats": args.disable_log_stats,
        "seed": 0,
    }
    if args.max_num_batched_tokens:
        engine_args["max_num_batched_tokens"] = args.max_num_batched_tokens
    started = time.perf_counter()
    engine = AsyncLLMEngine.from_engine_args(AsyncEngineArgs(**engine_args))
    try:
        startup_s = time.perf_counter() - started
        freeze_startup_heap()  # as the service and vLLM's own server do
        tokenizer = engine.get_tokenizer()
        if inspect.isawaitable(tokenizer):
            tokenizer = await tokenizer
        common = {
            "concurrency": args.concurrency,
            "max_model_len": args.max_model_len,
            "stream": args.stream,
        }
        if args.warmup:
            await drive(
                engine, tokenizer, warmup_items(items, args.warmup), requests=args.warmup, **common
            )
        meter = CpuMeter.of_pid(None)
        results, elapsed = await drive(engine, tokenizer, items, requests=args.requests, **common)
        cpu = meter.stop()
    finally:
        engine.shutdown()
        del engine  # before interpreter exit: AsyncLLM.__del__ can raise late otherwise
    stats = summarize(results, mode="closed", concurrency=args.concurrency, duration_s=elapsed)
    return {"stats": stats.to_dict(), "cpu": cpu, "startup_s": startup_s}


def main(argv: Sequence[str] | None = None) -> int:
    from translate_server.loadgen.cli import add_workload_arguments

    parser = argparse.ArgumentParser(prog="python -m benchmarks.engine_arm")
    parser.add_argument("--model", required=True)
    parser.add_argument("--served-model-name", default=None)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--max-model-len", type=int, default=2048)
    parser.add_argument("--max-num-seqs", type=int, default=16)
    parser.add_argument("--max-num-batched-tokens", type=int, default=None)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--requests", type=int, default=64)
    parser.add_argument("--warmup", type=int, default=8)
    parser.add_argument("--json", dest="json_path", required=True)
    parser.add_argument(
        "--disable-log-stats",
        action="store_true",
        help="without vLLM's statistics (as `vllm serve --disable-log-stats`)",
    )
    parser.add_argument(
        "--no-stream",
        dest="stream",
        action="store_false",
        help="ask for each request's final output only",
    )
    add_workload_arguments(parser)
    args = parser.parse_args(argv)
    document = asyncio.run(_main(args))
    with open(args.json_path, "w") as handle:
        json.dump(document, handle, indent=2, default=str)
    print(f"engine arm: {document['stats']['output_tokens_per_s']:.1f} tok/s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
