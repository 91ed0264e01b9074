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
import asyncio
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from benchmarks.cpu import CpuMeter
from translate_server.loadgen.client import Api, Target, run_level
from translate_server.loadgen.report import write_json
from translate_server.loadgen.stats import LevelStats, median, percentile
from translate_server.loadgen.workload import warmup_items

ARMS: tuple[str, ...] = ("engine", "translate", "chat", "vllm")
SERVED_NAME = "bench-model"
CPU_ENV = {
    "VLLM_TARGET_DEVICE": "cpu",
    "VLLM_CPU_KVCACHE_SPACE": "1",
    "VLLM_NO_USAGE_STATS": "1",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
}

# What each measurement reports, in table order: key, heading, better when higher.
METRICS: tuple[tuple[str, str, bool], ...] = (
    ("requests_per_s", "req/s", True),
    ("output_tokens_per_s", "out tok/s", True),
    ("latency_p50_ms", "p50 ms", False),
    ("latency_p95_ms", "p95 ms", False),
    ("ttft_p50_ms", "ttft p50", False),
    ("ttft_p95_ms", "ttft p95", False),
    ("itl_p50_ms", "itl p50", False),
    ("itl_p99_ms", "itl p99", False),
    ("itl_max_ms", "itl max", False),
    ("front_cpu_ms_per_1k_tokens", "front cpu ms/1k tok", False),
    ("tree_cpu_ms_per_1k_tokens", "total cpu ms/1k tok", False),
    ("service_overhead_p50_ms", "own ms/req p50", False),
)


def measurement(stats: LevelStats | dict[str, Any], cpu: dict[str, float]) -> dict[str, float]:
    """The flat figures compared between arms, from one measured level and its CPU time."""
    s = stats.to_dict() if isinstance(stats, LevelStats) else stats
    tokens = s["output_tokens"] or 0
    ttft = s.get("ttft_ms") or {}
    itl = s.get("itl_ms") or {}
    per_1k = 1_000_000 / tokens if tokens else float("nan")  # seconds -> ms per 1k tokens
    return {
        "requests_per_s": s["requests_per_s"],
        "output_tokens_per_s": s["output_tokens_per_s"],
        "latency_p50_ms": s["latency_ms"]["p50"],
        "latency_p95_ms": s["latency_ms"]["p95"],
        "ttft_p50_ms": ttft.get("p50", float("nan")),
        "ttft_p95_ms": ttft.get("p95", float("nan")),
        "itl_p50_ms": itl.get("p50", float("nan")),
        "itl_p99_ms": itl.get("p99", float("nan")),
        "itl_max_ms": itl.get("max", float("nan")),
        "front_cpu_ms_per_1k_tokens": cpu.get("front_cpu_s", float("nan")) * per_1k,
        "tree_cpu_ms_per_1k_tokens": cpu.get("tree_cpu_s", float("nan")) * per_1k,
        "errors": s["errors"],
        "output_tokens": tokens,
    }


def service_overhead(log_text: str, routes: Sequence[str]) -> dict[str, float]:
    """The service's own time per request (`total_ms - engine_ms`) from its JSON request log."""
    decoder = msgspec.json.Decoder()
    own: list[float] = []
    for line in log_text.splitlines():
        if not line.startswith("{") or '"engine_ms"' not in line:
            continue
        try:
            record = decoder.decode(line)
        except msgspec.DecodeError:
            continue
        if record.get("route") not in routes or record.get("status") != 200:
            continue
        total, engine = record.get("total_ms"), record.get("engine_ms")
        if isinstance(total, int | float) and isinstance(engine, int | float):
            own.append(total - engine)
    if not own:
        return {}
    return {
        "service_overhead_p50_ms": percentile(own, 50),
        "service_overhead_p95_ms": percentile(own, 95),
        "service_overhead_requests": len(own),
    }


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


def ratios(rounds: Sequence[dict[str, dict[str, float]]], baseline: str) -> dict[str, dict]:
    """Per arm and metric: the median over rounds of (arm / baseline) within each round."""
    out: dict[str, dict[str, float]] = {}
    for arm in sorted({arm for r in rounds for arm in r}):
        out[arm] = {}
        for key, _, _ in METRICS:
            values = [
                r[arm][key] / r[baseline][key]
                for r in rounds
                if arm in r and baseline in r
                and _finite(r[arm].get(key)) and _finite(r[baseline].get(key))
                and r[baseline][key] != 0
            ]
            if values:
                out[arm][key] = median(values)
    return out


def medians(rounds: Sequence[dict[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
    """Per arm and metric: the median over rounds (missing and NaN values left out)."""
    out: dict[str, dict[str, float]] = {}
    for arm in sorted({arm for r in rounds for arm in r}):
        keys = sorted({key for r in rounds if arm in r for key in r[arm]})
        out[arm] = {}
        for key in keys:
            values = [r[arm][key] for r in rounds if arm in r and _finite(r[arm].get(key))]
            if values:
                out[arm][key] = median(values)
    return out


def rotation(units: Sequence[str], round_index: int) -> list[str]:
    shift = round_index % len(units)
    return list(units[shift:]) + list(units[:shift])


def format_comparison(
    arm_medians: dict[str, dict[str, float]],
    arm_ratios: dict[str, dict[str, float]],
    order: Sequence[str],
    baseline: str,
) -> str:
    headers = ["arm"] + [h for _, h, _ in METRICS]
    rows = []
    for arm in order:
        if arm not in arm_medians:
            continue
        cells = [arm]
        for key, _, _ in METRICS:
            value = arm_medians[arm].get(key)
            ratio = arm_ratios.get(arm, {}).get(key)
            if value is None or math.isnan(value):
                cells.append("-")
            elif arm == baseline or ratio is None:
                cells.append(f"{value:,.1f}")
            else:
                cells.append(f"{value:,.1f} ({ratio:.2f}x)")
        rows.append(cells)
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(headers)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(headers, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in rows]
    lines.append(f"medians over rounds; (x) = median of per-round ratios to `{baseline}`")
    return "\n".join(lines)


# -- processes -------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# The checkout's root, so that the engine arm's subprocess imports `benchmarks` from any cwd.
CHECKOUT = Path(__file__).resolve().parents[1]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(CHECKOUT), env.get("PYTHONPATH"))))
    for key, value in CPU_ENV.items():
        env.setdefault(key, value)
    return env


def _translate_server_command() -> list[str]:
    script = Path(sys.executable).parent / "translate-server"
    if script.exists():
        return [str(script)]
    found = shutil.which("translate-server")
    if found:
        return [found]
    return [sys.executable, "-m", "translate_server"]


@dataclass
class Server:
    """A serving subprocess in its own process group, stderr captured to a file."""

    command: list[str]
    port: int
    log_path: Path
    process: subprocess.Popen | None = None
    startup_s: float = 0.0
    _log: Any = field(default=None, repr=False)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_s: float) -> None:
        import urllib.request

        self._log = open(self.log_path, "wb")
        began = time.perf_counter()
        self.process = subprocess.Popen(
            self.command,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env=_env(),
            start_new_session=True,
        )
        while time.perf_counter() - began < timeout_s:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"{self.command[0]} exited with {self.process.returncode}; "
                    f"see {self.log_path}:\n{self.log_tail()}"
                )
            try:
                with urllib.request.urlopen(self.base_url + "/v1/models", timeout=2) as answer:
                    if answer.status == 200:
                        self.startup_s = time.perf_counter() - began
                        return
            except OSError:
                pass
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"{self.command[0]} not ready after {timeout_s:.0f} s; see {self.log_path}")

    def log_size(self) -> int:
        return self.log_path.stat().st_size

    def log_since(self, offset: int) -> str:
        with open(self.log_path, "rb") as handle:
            handle.seek(offset)
            return handle.read().decode("utf-8", "replace")

    def log_tail(self, chars: int = 3000) -> str:
        return self.log_path.read_bytes()[-chars:].decode("utf-8", "replace")

    def stop(self, grace_s: float = 30.0) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGINT)
        try:
            self.process.wait(grace_s)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        if self._log is not None:
            self._log.close()


# -- the comparison --------------------------------------------------------------------------


@dataclass
class CompareConfig:
    model: str
    arms: list[str]
    rounds: int
    concurrency: int
    requests: int
    warmup: int
    stream: bool
    max_num_seqs: int
    max_model_len: int
    dtype: str
    max_num_batched_tokens: int | None
    workload_argv: list[str]
    out_dir: Path
    startup_timeout_s: float
    # vLLM's statistics (its `vllm:*` metrics) cost the serving process CPU on every engine
    # step; every arm keeps them on, or every arm turns them off, never a mix.
    engine_metrics: bool = True


def engine_arguments(cfg: CompareConfig) -> list[str]:
    """The engine arguments every arm gets, as command-line flags (same names everywhere)."""
    args = [
        "--max-num-seqs", str(cfg.max_num_seqs),
        "--max-model-len", str(cfg.max_model_len),
        "--dtype", cfg.dtype,
    ]
    if cfg.max_num_batched_tokens:
        args += ["--max-num-batched-tokens", str(cfg.max_num_batched_tokens)]
    return args


def engine_arm_command(cfg: CompareConfig, out: Path) -> list[str]:
    return [
        sys.executable, "-m", "benchmarks.engine_arm",
        "--model", cfg.model, "--served-model-name", SERVED_NAME,
        *engine_arguments(cfg),
        "--concurrency", str(cfg.concurrency), "--requests", str(cfg.requests),
        "--warmup", str(cfg.warmup), "--json", str(out), *cfg.workload_argv,
        *([] if cfg.stream else ["--no-stream"]),
        *([] if cfg.engine_metrics else ["--disable-log-stats"]),
    ]


def service_command(cfg: CompareConfig, port: int) -> list[str]:
    return [
        *_translate_server_command(), "serve",
        "--model", cfg.model, "--served-model-name", SERVED_NAME,
        "--host", "127.0.0.1", "--port", str(port), *engine_arguments(cfg),
        "--log-format", "json", "--request-timeout", "600",
        # Warm-up requests repeat the workload's first texts: from the cache, /translate
        # would answer some measured requests without the engine that every other arm uses.
        "--translation-cache-size", "0",
        *([] if cfg.engine_metrics else ["--no-engine-metrics"]),
    ]


def vllm_command(cfg: CompareConfig, port: int) -> list[str]:
    return [
        sys.executable, "-m", "vllm.entrypoints.openai.api_server",
        "--model", cfg.model, "--served-model-name", SERVED_NAME,
        "--host", "127.0.0.1", "--port", str(port), *engine_arguments(cfg),
        "--enforce-eager", "--disable-uvicorn-access-log",
        *([] if cfg.engine_metrics else ["--disable-log-stats"]),
    ]


def run_engine_arm(cfg: CompareConfig, round_index: int) -> dict[str, float]:
    out = cfg.out_dir / f"engine-round{round_index}.json"
    log = cfg.out_dir / f"engine-round{round_index}.log"
    command = engine_arm_command(cfg, out)
    with open(log, "wb") as handle:
        code = subprocess.call(command, stdout=handle, stderr=subprocess.STDOUT, env=_env())
    if code != 0:
        tail = log.read_bytes()[-3000:].decode("utf-8", "replace")
        raise RuntimeError(f"engine arm failed ({code}); see {log}:\n{tail}")
    document = msgspec.json.decode(out.read_bytes())
    return measurement(document["stats"], document["cpu"]) | {"startup_s": document["startup_s"]}


async def _measure_http(
    server: Server, target: Target, cfg: CompareConfig, items: list, routes: Sequence[str]
) -> dict[str, float]:
    if cfg.warmup:
        await run_level(target, warmup_items(items, cfg.warmup), concurrency=cfg.concurrency,
                        requests=cfg.warmup)
    offset = server.log_size()
    assert server.process is not None
    meter = CpuMeter.of_pid(server.process.pid)
    stats = await run_level(target, items, concurrency=cfg.concurrency, requests=cfg.requests)
    cpu = meter.stop()
    await asyncio.sleep(0.2)  # the last request-log lines
    figures = measurement(stats, cpu)
    figures.update(service_overhead(server.log_since(offset), routes))
    figures["startup_s"] = server.startup_s
    return figures


def _run_server_arm(
    cfg: CompareConfig, arm: str, round_index: int, items: list, *,
    command: Callable[[CompareConfig, int], list[str]], api: Api, logs_requests: bool,
) -> dict[str, float]:
    """Start a server, measure the workload through `api`, stop it. `logs_requests`: the
    server writes this service's request log, from which its own time is read."""
    port = free_port()
    server = Server(command(cfg, port), port, cfg.out_dir / f"{arm}-round{round_index}.log")
    server.start(cfg.startup_timeout_s)
    try:
        target = Target(server.base_url, api, model=SERVED_NAME, stream=cfg.stream)
        routes = [target.path] if logs_requests else []
        return asyncio.run(_measure_http(server, target, cfg, items, routes))
    finally:
        server.stop()


def run_service_arm(
    cfg: CompareConfig, arm: str, round_index: int, items: list
) -> dict[str, float]:
    # A server of its own for each route, as every other arm has: a route measured after
    # another on the same server would find the same prompts in vLLM's prefix cache.
    return _run_server_arm(cfg, arm, round_index, items, command=service_command, api=arm,
                           logs_requests=True)


def run_vllm_arm(cfg: CompareConfig, round_index: int, items: list) -> dict[str, float]:
    return _run_server_arm(cfg, "vllm", round_index, items, command=vllm_command, api="chat",
                           logs_requests=False)


def run_comparison(cfg: CompareConfig, items: list, log=print) -> dict[str, Any]:
    units = [arm for arm in ARMS if arm in cfg.arms]
    rounds: list[dict[str, dict[str, float]]] = []
    for r in range(cfg.rounds):
        figures: dict[str, dict[str, float]] = {}
        for arm in rotation(units, r):
            log(f"round {r + 1}/{cfg.rounds}: {arm} ...")
            if arm == "engine":
                figures[arm] = run_engine_arm(cfg, r)
            elif arm == "vllm":
                figures[arm] = run_vllm_arm(cfg, r, items)
            else:
                figures[arm] = run_service_arm(cfg, arm, r, items)
            f = figures[arm]
            log(
                f"  {arm}: {f['output_tokens_per_s']:.1f} tok/s, "
                f"{f['requests_per_s']:.2f} req/s, p95 {f['latency_p95_ms']:.0f} ms, "
                f"{f['errors']} errors"
            )
        rounds.append(figures)
    order = list(dict.fromkeys(cfg.arms))  # as listed: the first is the baseline
    baseline = order[0]
    return {
        "arms": order,
        "baseline": baseline,
        "rounds": rounds,
        "medians": medians(rounds),
        "ratios": ratios(rounds, baseline),
    }


def add_parser(sub: argparse._SubParsersAction) -> None:
    from translate_server.loadgen.cli import add_workload_arguments

    parser = sub.add_parser(
        "compare",
        help="engine in-process vs this service vs vLLM's server, one workload, in one run",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--model", default=None, help="model id or directory (default: the "
                        "bundled SmolLM2-135M-Instruct, prepared locally: the chat arms need "
                        "a chat template)")
    parser.add_argument("--arms", default=",".join(ARMS),
                        help=f"comma-separated subset of {','.join(ARMS)}; the first is the "
                        "baseline of the ratios")
    parser.add_argument("--rounds", type=int, default=3, help="repeats, order rotated (default 3)")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--requests", type=int, default=64, help="measured requests per arm")
    parser.add_argument("--warmup", type=int, default=8, help="unmeasured requests per arm")
    parser.add_argument("--no-stream", dest="stream", action="store_false",
                        help="non-streaming requests (no TTFT)")
    parser.add_argument("--no-engine-metrics", dest="engine_metrics", action="store_false",
                        help="every arm without vLLM's statistics and `vllm:*` metrics "
                        "(default: every arm with them, as the service and `vllm serve` run)")
    parser.add_argument("--max-num-seqs", type=int, default=16)
    # Room for the longest workload text in one piece: with less, /translate splits long
    # texts into pieces that the other arms send whole, and the arms no longer do the same
    # engine work.
    parser.add_argument("--max-model-len", type=int, default=2048)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--max-num-batched-tokens", type=int, default=None)
    parser.add_argument("--startup-timeout", type=float, default=600.0)
    parser.add_argument("--out-dir", default=None,
                        help="logs and compare.json (default: bench-results/compare-<time>)")
    add_workload_arguments(parser)
    parser.set_defaults(handler=cmd_compare)


def _workload_argv(args: argparse.Namespace) -> list[str]:
    argv = [
        "--workload", args.workload, "--seed", str(args.seed),
        "--min-tokens", str(args.min_tokens), "--max-input-tokens", str(args.max_input_tokens),
        "--output-ratio", str(args.output_ratio), "--workload-size", str(args.workload_size),
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
        print("--exact-output: /translate cannot ignore the end of an answer; leave out the "
              "translate arm (--arms engine,chat,vllm)", file=sys.stderr)
        return 2
    out_dir = Path(args.out_dir or f"bench-results/compare-{time.strftime('%Y%m%d-%H%M%S')}")
    out_dir.mkdir(parents=True, exist_ok=True)
    model = resolve_local_model(args.model)
    spec, items = workload_from_args(args)
    cfg = CompareConfig(
        model=model, arms=arms, rounds=args.rounds, concurrency=args.concurrency,
        requests=args.requests, warmup=args.warmup, stream=args.stream,
        max_num_seqs=args.max_num_seqs, max_model_len=args.max_model_len, dtype=args.dtype,
        max_num_batched_tokens=args.max_num_batched_tokens,
        workload_argv=_workload_argv(args), out_dir=out_dir,
        startup_timeout_s=args.startup_timeout, engine_metrics=args.engine_metrics,
    )
    log = lambda message: print(message, file=sys.stderr, flush=True)
    log(f"model {model}; arms {', '.join(arms)}; {cfg.rounds} rounds of {cfg.requests} requests "
        f"at concurrency {cfg.concurrency}; logs in {out_dir}")
    result = run_comparison(cfg, items, log=log)
    print(format_comparison(result["medians"], result["ratios"], result["arms"],
                            result["baseline"]))
    document = {
        "config": {
            "model": model, "served_model_name": SERVED_NAME, "arms": arms,
            "rounds": cfg.rounds, "concurrency": cfg.concurrency, "requests": cfg.requests,
            "warmup": cfg.warmup, "stream": cfg.stream, "max_num_seqs": cfg.max_num_seqs,
            "max_model_len": cfg.max_model_len, "dtype": cfg.dtype,
            "max_num_batched_tokens": cfg.max_num_batched_tokens,
            "engine_metrics": cfg.engine_metrics, "workload": spec.describe(),
        },
        **result,
    }
    write_json(out_dir / "compare.json", document)
    log(f"wrote {out_dir / 'compare.json'}")
    return 0

