"""`python -m benchmarks adapters`: one server holding a base model and three LoRA adapters,
each routed to its language pair, against three servers of the base model, one per pair.

Both arms get the same mixed workload of en-de, en-fr and en-es texts (the loadgen's variable
workload, 10-200 tokens), streamed to `POST /translate` by one closed loop of `--concurrency`
clients: arm `one` sends every text to its one server, which routes it to the pair's adapter;
arm `three` sends each text to its pair's server. Every server has the same engine settings
(`--max-num-seqs`, `--kv-cache-gib`, `--max-model-len`, `--dtype`, `--cpu-placement`) and
the translation cache off. The arms run back to back, each on freshly started servers.
Memory is the PSS (and RSS) summed over each server's whole process tree, the highest sample
during the measured requests.

Then, on arm `one`'s server, what an adapter costs per request: the same en-de texts sent to
the base model (`model` names it) and routed to the en-de adapter, at concurrency 1 and 16.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import msgspec

from benchmarks.adapters_lora import build_random_lora
from benchmarks.adapters_memory import PeakSampler
from benchmarks.adapters_workload import (
    ARM_COLUMNS,
    COST_COLUMNS,
    PAIRS,
    figures,
    goal_line,
    markdown_table,
    mixed_workload,
    route,
)
from benchmarks.compare_arms import _translate_server_command
from benchmarks.compare_processes import Server, free_port
from translate_server.loadgen.client import Target, send_one
from translate_server.loadgen.report import write_json
from translate_server.loadgen.stats import RequestResult, summarize
from translate_server.loadgen.workload import WorkItem, WorkloadSpec, tokenizer_counter

SERVED = "base"
Request = tuple[Target, bytes]


@dataclass
class Setup:
    model: str
    adapters: dict[str, str]  # pair -> adapter folder
    args: argparse.Namespace
    out_dir: Path


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "adapters",
        help="one server with three LoRA adapters vs three servers, one workload, one run",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--model", default=None, help="base model (default: the service's default)")
    p.add_argument("--de-adapter", default=None, help="a trained en-de adapter (default: random)")
    p.add_argument("--requests", type=int, default=96, help="measured requests per arm")
    p.add_argument("--warmup", type=int, default=6, help="unmeasured requests per arm")
    p.add_argument("--concurrency", type=int, default=16)
    p.add_argument("--cost-requests", type=int, default=32, help="per model at concurrency 16")
    p.add_argument("--cost-requests-1", type=int, default=6, help="per model at concurrency 1")
    p.add_argument("--no-cost", dest="cost", action="store_false", help="skip the cost part")
    p.add_argument("--arms", default="one,three", help="order of the arms (default one,three)")
    p.add_argument("--max-num-seqs", type=int, default=16, help="every server's (default 16)")
    p.add_argument("--kv-cache-gib", type=float, default=1.0, help="every server's (default 1)")
    p.add_argument("--max-model-len", type=int, default=1024)
    p.add_argument("--dtype", default="auto")
    p.add_argument("--cpu-placement", default="shared", choices=("shared", "split"))
    # A slow machine at concurrency 16 answers in tens of seconds: the service's default (60 s)
    # would abort requests, and an aborted request is neither throughput nor latency.
    p.add_argument("--request-timeout", type=float, default=600.0, help="every server's")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workload-size", type=int, default=256)
    p.add_argument("--startup-timeout", type=float, default=600.0)
    p.add_argument("--out-dir", default=None, help="default: bench-results/adapters-<time>")
    p.set_defaults(handler=cmd_adapters)


def server_command(setup: Setup, port: int, adapters: dict[str, str]) -> list[str]:
    a = setup.args
    command = [
        *_translate_server_command(), "serve", "--model", setup.model,
        "--served-model-name", SERVED, "--port", str(port),
        "--max-num-seqs", str(a.max_num_seqs), "--kv-cache-gib", str(a.kv_cache_gib),
        "--max-model-len", str(a.max_model_len), "--dtype", a.dtype,
        "--cpu-placement", a.cpu_placement, "--translation-cache-size", "0",
        "--request-timeout", str(a.request_timeout), "--log-level", "warning",
    ]  # fmt: skip
    for pair, folder in adapters.items():
        command += ["--lora", f"{pair.split('-')[1]}={folder}@{pair}"]
    if adapters:
        command += ["--max-loras", str(len(adapters)), "--max-lora-rank", "8"]
    return command


def start(setup: Setup, name: str, adapters: dict[str, str]) -> Server:
    port = free_port()
    server = Server(server_command(setup, port, adapters), port, setup.out_dir / f"{name}.log")
    server.start(setup.args.startup_timeout)
    return server


def bodies(items: Sequence[WorkItem], urls: Sequence[str], model: str | None = None) -> list:
    requests = []
    for item, url in zip(items, urls, strict=True):
        target = Target(url, "translate", stream=True)
        body = target.body(item)
        if model is not None:
            body["model"] = model
        requests.append((target, msgspec.json.encode(body)))
    return requests


async def run_routed(
    requests: Sequence[Request], concurrency: int
) -> tuple[list[RequestResult], float]:
    """Every request once, in order, by `concurrency` closed-loop clients; each request goes
    to its own target. Returns the results and the wall time."""
    results: list[RequestResult] = []
    pending = iter(requests)
    connector = aiohttp.TCPConnector(limit=concurrency)
    timeout = aiohttp.ClientTimeout(total=900)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:

        async def client() -> None:
            for target, body in pending:
                results.append(await send_one(session, target, body))

        began = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(concurrency)))
        return results, time.perf_counter() - began


def measure(requests: Sequence[Request], concurrency: int, pids: list[int] | None = None) -> dict:
    sampler = PeakSampler(pids) if pids else None
    results, elapsed = asyncio.run(run_routed(requests, concurrency))
    memory = sampler.stop() if sampler else {}
    stats = summarize(results, mode="closed", concurrency=concurrency, duration_s=elapsed)
    return figures(stats, results) | memory | {"error_kinds": stats.error_kinds}


def run_arm(setup: Setup, arm: str, items: list[WorkItem], log: Any) -> dict[str, Any]:
    """Start the arm's servers, warm them up, measure the workload, run the cost part on arm
    `one`, stop the servers."""
    a = setup.args
    servers: list[Server] = []
    try:
        if arm == "one":
            servers.append(start(setup, "one", setup.adapters))
            urls = dict.fromkeys(PAIRS, servers[0].base_url)
        else:
            servers.extend(start(setup, f"three-{pair}", {}) for pair in PAIRS)
            urls = {pair: s.base_url for pair, s in zip(PAIRS, servers, strict=True)}
        log(f"{arm}: {len(servers)} server(s) up, measuring {a.requests} requests")
        warm, measured = items[-a.warmup :], items[: a.requests]
        if a.warmup:
            measure(bodies(warm, route(warm, urls)), a.concurrency)
        pids = [s.process.pid for s in servers if s.process is not None]
        result = measure(bodies(measured, route(measured, urls)), a.concurrency, pids)
        result["servers"] = len(servers)
        result["startup_s"] = max(s.startup_s for s in servers)
        log(f"  {arm}: {result['output_tokens_per_s']:.1f} tok/s, {result['pss_gib']:.2f} GiB")
        cost = adapter_cost(setup, servers[0].base_url, log) if arm == "one" and a.cost else {}
        return {"arm": result, "cost": cost}
    finally:
        for server in servers:
            server.stop()


def adapter_cost(setup: Setup, url: str, log: Any) -> dict[str, dict]:
    """The same en-de texts to the base model and to the en-de adapter, at concurrency 1 and
    16; texts none of the arms sent, so no prompt is in the prefix cache already."""
    a = setup.args
    spec = WorkloadSpec(size=a.cost_requests_1 + a.cost_requests, seed=a.seed + 1)
    texts = mixed_workload(spec, ("en-de",), tokenizer_counter(setup.model))
    levels = [(1, texts[: a.cost_requests_1]), (16, texts[a.cost_requests_1 :])]
    cost: dict[str, dict] = {}
    for concurrency, chosen in levels:
        urls = [url] * len(chosen)
        # The order alternates between levels, so drift does not always favour one model.
        order = ["base", "adapter"] if concurrency == 1 else ["adapter", "base"]
        for model in order:
            requests = bodies(chosen, urls, SERVED if model == "base" else None)
            key = f"{model} c={concurrency}"
            cost[key] = measure(requests, concurrency) | {"concurrency": concurrency}
            log(f"  cost {key}: {cost[key]['output_tokens_per_s']:.1f} tok/s")
    return cost


def adapter_folders(model: str, de_adapter: str | None, root: Path) -> dict[str, str]:
    folders = {}
    for seed, pair in enumerate(PAIRS, start=1):
        if pair == "en-de" and de_adapter:
            folders[pair] = str(Path(de_adapter).resolve())
        else:
            folders[pair] = str(build_random_lora(model, root / pair, seed=seed))
    return folders


def default_model() -> str:
    from translate_server.inference.model_files import resolve_model
    from translate_server.settings import EngineSettings

    return resolve_model(EngineSettings())


def cmd_adapters(args: argparse.Namespace) -> int:
    arms = [arm.strip() for arm in args.arms.split(",") if arm.strip()]
    if not arms or set(arms) - {"one", "three"}:
        print("--arms: one, three or both", file=sys.stderr)
        return 2
    out_dir = Path(args.out_dir or f"bench-results/adapters-{time.strftime('%Y%m%d-%H%M%S')}")
    out_dir.mkdir(parents=True, exist_ok=True)
    # vLLM's CPU platform reads the KV cache size from here, over the engine argument.
    os.environ["VLLM_CPU_KVCACHE_SPACE"] = f"{args.kv_cache_gib:g}"

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    model = args.model or default_model()
    adapters = adapter_folders(model, args.de_adapter, out_dir / "loras")
    setup = Setup(model, adapters, args, out_dir)
    items = mixed_workload(
        WorkloadSpec(size=args.workload_size, seed=args.seed), PAIRS, tokenizer_counter(model)
    )
    log(f"model {model}; adapters {adapters}; logs in {out_dir}")
    results = {arm: run_arm(setup, arm, items, log) for arm in arms}
    rows = [(arm, results[arm]["arm"]) for arm in arms]
    print(markdown_table("arm", rows, ARM_COLUMNS))
    if len(arms) == 2:
        print("\n" + goal_line(results["one"]["arm"], results["three"]["arm"]))
    cost = results.get("one", {}).get("cost") or {}
    if cost:
        print("\n" + markdown_table("en-de texts to", list(cost.items()), COST_COLUMNS))
    config = {k: v for k, v in vars(args).items() if k != "handler"}
    write_json(out_dir / "adapters.json", {"config": config, "adapters": adapters, **results})
    log(f"wrote {out_dir / 'adapters.json'}")
    return 0
