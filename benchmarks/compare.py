"""`bench compare` (`make bench`): one workload, one model, the same engine arguments, through

1. ``engine``    AsyncLLMEngine in-process, no HTTP: the engine's limit;
2. ``translate`` this service's ``POST /translate``;
3. ``chat``      this service's ``POST /v1/chat/completions`` (same prompt, stop strings);
4. ``vllm``      vLLM's own OpenAI server (``python -m vllm.entrypoints.openai.api_server``).

Arms run one after another as fresh subprocesses, never side by side (two engines would share
two cores). Each round runs every arm once; rounds rotate the order, so drift over a run (heat,
caches, other load) spreads over all arms. Reported: per-arm medians over rounds, and each
arm's ratio to the engine arm computed within each round, then its median across rounds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from benchmarks.compare_arms import ARMS, SERVED_NAME, CompareConfig
from benchmarks.compare_runner import run_comparison
from benchmarks.compare_summary import format_comparison
from translate_server.loadgen.report import write_json


def add_parser(sub: argparse._SubParsersAction) -> None:
    from translate_server.loadgen.cli import add_workload_arguments

    parser = sub.add_parser(
        "compare",
        help="engine in-process vs this service vs vLLM's server, one workload, in one run",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--model",
        default=None,
        help="model id or directory (default: the "
        "bundled SmolLM2-135M-Instruct, prepared locally: the chat arms need "
        "a chat template)",
    )
    parser.add_argument(
        "--arms",
        default=",".join(ARMS),
        help=f"comma-separated subset of {','.join(ARMS)}; the first is the baseline of the ratios",
    )
    parser.add_argument("--rounds", type=int, default=3, help="repeats, order rotated (default 3)")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--requests", type=int, default=64, help="measured requests per arm")
    parser.add_argument("--warmup", type=int, default=8, help="unmeasured requests per arm")
    parser.add_argument(
        "--no-stream", dest="stream", action="store_false", help="non-streaming requests (no TTFT)"
    )
    parser.add_argument(
        "--no-engine-metrics",
        dest="engine_metrics",
        action="store_false",
        help="every arm without vLLM's statistics and `vllm:*` metrics "
        "(default: every arm with them, as the service and `vllm serve` run)",
    )
    parser.add_argument("--max-num-seqs", type=int, default=16)
    # Room for the longest workload text in one piece: with less, /translate splits long
    # texts into pieces that the other arms send whole, and the arms no longer do the same
    # engine work.
    parser.add_argument("--max-model-len", type=int, default=2048)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--max-num-batched-tokens", type=int, default=None)
    parser.add_argument("--startup-timeout", type=float, default=600.0)
    parser.add_argument(
        "--out-dir",
        default=None,
        help="logs and compare.json (default: bench-results/compare-<time>)",
    )
    add_workload_arguments(parser)
    parser.set_defaults(handler=cmd_compare)


def _workload_argv(args: argparse.Namespace) -> list[str]:
    argv = [
        "--workload",
        args.workload,
        "--seed",
        str(args.seed),
        "--min-tokens",
        str(args.min_tokens),
        "--max-input-tokens",
        str(args.max_input_tokens),
        "--output-ratio",
        str(args.output_ratio),
        "--workload-size",
        str(args.workload_size),
    ]
    if args.uniform_tokens is not None:
        argv += ["--uniform-tokens", str(args.uniform_tokens)]
    if args.max_tokens is not None:
        argv += ["--max-tokens", str(args.max_tokens)]
    if args.tokenizer:
        argv += ["--tokenizer", args.tokenizer]
    if args.exact_output:
        argv.append("--exact-output")
    return argv


def resolve_local_model(model: str | None) -> str:
    """A path every arm can load: a bundled model is prepared (once) locally."""
    from translate_server.inference.model_files import SMOLLM2_135M, resolve_model
    from translate_server.settings import EngineSettings

    # The chat arms need a chat template: the bundled instruction-tuned model by default.
    settings = EngineSettings(model=model or SMOLLM2_135M)
    return resolve_model(settings)


def cmd_compare(args: argparse.Namespace) -> int:
    from translate_server.loadgen.cli import workload_from_args

    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    unknown = [a for a in arms if a not in ARMS]
    if unknown or not arms:
        print(f"unknown arms {unknown}; choose from {', '.join(ARMS)}", file=sys.stderr)
        return 2
    if args.exact_output and "translate" in arms:
        print(
            "--exact-output: /translate cannot ignore the end of an answer; leave out the "
            "translate arm (--arms engine,chat,vllm)",
            file=sys.stderr,
        )
        return 2
    out_dir = Path(args.out_dir or f"bench-results/compare-{time.strftime('%Y%m%d-%H%M%S')}")
    out_dir.mkdir(parents=True, exist_ok=True)
    model = resolve_local_model(args.model)
    spec, items = workload_from_args(args)
    cfg = CompareConfig(
        model=model,
        arms=arms,
        rounds=args.rounds,
        concurrency=args.concurrency,
        requests=args.requests,
        warmup=args.warmup,
        stream=args.stream,
        max_num_seqs=args.max_num_seqs,
        max_model_len=args.max_model_len,
        dtype=args.dtype,
        max_num_batched_tokens=args.max_num_batched_tokens,
        workload_argv=_workload_argv(args),
        out_dir=out_dir,
        startup_timeout_s=args.startup_timeout,
        engine_metrics=args.engine_metrics,
    )
    log = lambda message: print(message, file=sys.stderr, flush=True)
    log(
        f"model {model}; arms {', '.join(arms)}; {cfg.rounds} rounds of {cfg.requests} requests "
        f"at concurrency {cfg.concurrency}; logs in {out_dir}"
    )
    result = run_comparison(cfg, items, log=log)
    print(
        format_comparison(result["medians"], result["ratios"], result["arms"], result["baseline"])
    )
    document = {
        "config": {
            "model": model,
            "served_model_name": SERVED_NAME,
            "arms": arms,
            "rounds": cfg.rounds,
            "concurrency": cfg.concurrency,
            "requests": cfg.requests,
            "warmup": cfg.warmup,
            "stream": cfg.stream,
            "max_num_seqs": cfg.max_num_seqs,
            "max_model_len": cfg.max_model_len,
            "dtype": cfg.dtype,
            "max_num_batched_tokens": cfg.max_num_batched_tokens,
            "engine_metrics": cfg.engine_metrics,
            "workload": spec.describe(),
        },
        **result,
    }
    write_json(out_dir / "compare.json", document)
    log(f"wrote {out_dir / 'compare.json'}")
    return 0
