"""`translate-server bench run`: load sweeps against any server speaking this service's or
OpenAI's API."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

from translate_server.loadgen.client import APIS, Target, discover_model, run_level
from translate_server.loadgen.report import build_document, format_table, plot, write_json
from translate_server.loadgen.stats import LevelStats, RequestResult
from translate_server.loadgen.workload import (
    WORKLOAD_KINDS,
    WorkItem,
    WorkloadSpec,
    estimate_tokens,
    length_summary,
    make_workload,
    starting_at,
    tokenizer_counter,
    warmup_items,
)

DEFAULT_CONCURRENCY = (1, 4, 8, 16, 25, 32, 64)


def _int_list(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected integers like 1,4,8: {text!r}") from exc
    if not values or any(v < 1 for v in values):
        raise argparse.ArgumentTypeError("values must be positive")
    return values


def _float_list(text: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected numbers like 0.5,1,2: {text!r}") from exc
    if not values or any(v <= 0 for v in values):
        raise argparse.ArgumentTypeError("rates must be positive")
    return values


def add_workload_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("workload")
    group.add_argument("--workload", choices=WORKLOAD_KINDS, default="variable")
    group.add_argument("--seed", type=int, default=0, help="same seed, same texts (default 0)")
    group.add_argument("--min-tokens", type=int, default=10, help="shortest text (variable)")
    group.add_argument("--max-input-tokens", type=int, default=200, help="longest text (variable)")
    group.add_argument(
        "--uniform-tokens", type=int, default=None, help="text length for uniform (default: mean)"
    )
    group.add_argument(
        "--output-ratio",
        type=float,
        default=1.5,
        help="max_tokens per request = input tokens x this (default 1.5)",
    )
    group.add_argument(
        "--max-tokens", type=int, default=None, help="a fixed max_tokens for every request instead"
    )
    group.add_argument(
        "--tokenizer",
        default=None,
        help="count real tokens with this tokenizer (model dir or id) instead of words x 1.3",
    )
    group.add_argument("--workload-size", type=int, default=512, help="distinct texts (cycled)")
    group.add_argument(
        "--exact-output",
        action="store_true",
        help="every answer exactly max_tokens long, ignoring end of sequence and stop strings "
        "(chat and in-process engine only; for random-weight test models)",
    )


def workload_from_args(args: argparse.Namespace) -> tuple[WorkloadSpec, list[WorkItem]]:
    spec = WorkloadSpec(
        kind=args.workload,
        size=args.workload_size,
        seed=args.seed,
        min_tokens=args.min_tokens,
        max_tokens=args.max_input_tokens,
        uniform_tokens=args.uniform_tokens,
        output_ratio=args.output_ratio,
        fixed_output_tokens=args.max_tokens,
        exact_output=args.exact_output,
    )
    count = tokenizer_counter(args.tokenizer) if args.tokenizer else estimate_tokens
    return spec, make_workload(spec, count)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`bench run`, on the `bench` command's subcommands (translate_server.bench)."""
    run = sub.add_parser(
        "run",
        help="sweep concurrency levels or request rates against a base URL",
        description="Closed-loop concurrency sweep (--concurrency) and/or open-loop fixed "
        "request rates (--rate) against /translate or /v1/chat/completions.",
    )
    run.add_argument("--base-url", default="http://127.0.0.1:8000")
    run.add_argument("--api", choices=APIS, default="translate")
    run.add_argument("--model", default=None, help="chat model name (default: from /v1/models)")
    run.add_argument(
        "--concurrency",
        type=_int_list,
        default=None,
        help="closed-loop levels, e.g. 1,4,8,16,25,32,64 (the default without --rate)",
    )
    run.add_argument("--rate", type=_float_list, default=None, help="open-loop requests/s levels")
    run.add_argument("--arrival", choices=("poisson", "constant"), default="poisson")
    run.add_argument(
        "--requests",
        type=int,
        default=None,
        help="requests per level (default: max(32, 4 x concurrency); open loop: 30 s of rate)",
    )
    run.add_argument("--warmup", type=int, default=4, help="unmeasured requests first (default 4)")
    run.add_argument("--stream", action="store_true", help="stream responses; measures TTFT")
    run.add_argument("--timeout", type=float, default=600.0, help="per-request timeout, seconds")
    run.add_argument("--max-connections", type=int, default=512, help="open-loop pool size")
    run.add_argument("--json", dest="json_path", default=None, help="write results as JSON here")
    run.add_argument("--plot", dest="plot_path", default=None, help="write a PNG plot here")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_workload_arguments(run)
    run.set_defaults(handler=cmd_run)


class _Progress:
    """A tqdm bar on stderr when it is a terminal (or silence)."""

    def __init__(self, total: int, desc: str, enabled: bool) -> None:
        self._bar = None
        if enabled:
            try:
                from tqdm import tqdm
            except ImportError:  # pragma: no cover
                return
            self._bar = tqdm(total=total, desc=desc, unit="req", leave=False, file=sys.stderr)
        self.errors = 0

    def __call__(self, result: RequestResult) -> None:
        if not result.ok:
            self.errors += 1
        if self._bar is not None:
            self._bar.update(1)
            if not result.ok:
                self._bar.set_postfix(errors=self.errors, refresh=False)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


def _requests_for(args: argparse.Namespace, concurrency: int | None, rate: float | None) -> int:
    if args.requests is not None:
        requests: int = args.requests
        return max(requests, concurrency or 1)
    if concurrency is not None:
        return max(32, 4 * concurrency)
    assert rate is not None
    return max(32, round(rate * 30))


async def _sweep(
    args: argparse.Namespace, target: Target, items: list[WorkItem]
) -> list[LevelStats]:
    levels: list[LevelStats] = []
    show = not args.no_progress and sys.stderr.isatty()
    plan: list[tuple[int | None, float | None]] = []
    concurrency = args.concurrency
    if concurrency is None and args.rate is None:
        concurrency = list(DEFAULT_CONCURRENCY)
    plan += [(c, None) for c in concurrency or []]
    plan += [(None, r) for r in args.rate or []]

    if args.warmup > 0:
        await run_level(
            target,
            warmup_items(items, args.warmup),
            concurrency=min(4, args.warmup),
            requests=args.warmup,
        )
    sent = 0  # each level goes on through the workload where the last one stopped
    for c, r in plan:
        n = _requests_for(args, c, r)
        desc = f"c={c}" if c is not None else f"r={r:g}/s"
        progress = _Progress(n, desc, show)
        try:
            stats = await run_level(
                target,
                starting_at(items, sent),
                concurrency=c,
                rate=r,
                requests=n,
                seed=args.seed,
                arrival=args.arrival,
                max_connections=args.max_connections,
                on_result=progress,
            )
        finally:
            progress.close()
        sent += n
        levels.append(stats)
        print(
            f"{stats.level}: {stats.requests_per_s:.2f} req/s, "
            f"{stats.output_tokens_per_s:.1f} tok/s, p95 {stats.latency_ms['p95']:.0f} ms, "
            f"{stats.errors} errors",
            file=sys.stderr,
        )
    return levels


def cmd_run(args: argparse.Namespace) -> int:
    spec, items = workload_from_args(args)
    model = args.model
    if args.api == "chat" and model is None:
        model = asyncio.run(discover_model(args.base_url))
    target = Target(
        base_url=args.base_url,
        api=args.api,
        model=model,
        stream=args.stream,
        timeout_s=args.timeout,
    )
    started = time.time()
    levels = asyncio.run(_sweep(args, target, items))
    print(format_table(levels))
    run = {
        "base_url": args.base_url,
        "api": args.api,
        "path": target.path,
        "model": model,
        "stream": args.stream,
        "arrival": args.arrival,
        "started_at": started,
        "workload": spec.describe() | {"tokenizer": args.tokenizer} | length_summary(items),
    }
    if args.json_path:
        write_json(args.json_path, build_document(run, levels))
        print(f"wrote {args.json_path}", file=sys.stderr)
    if args.plot_path:
        title = f"{target.path} ({args.workload} workload{', streaming' if args.stream else ''})"
        plot(levels, args.plot_path, title=title)
        print(f"wrote {args.plot_path}", file=sys.stderr)
    return 1 if levels and all(s.ok == 0 for s in levels) else 0
