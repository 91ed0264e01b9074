"""Runs `compare`: every arm once per round, one after another as fresh subprocesses, the order
rotated from round to round; each arm's run is measured into its figures."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from benchmarks.compare_arms import (
    ARMS,
    SERVED_NAME,
    CompareConfig,
    engine_arm_command,
    service_command,
    vllm_command,
)
from benchmarks.compare_figures import measurement, service_overhead
from benchmarks.compare_processes import Server, free_port, subprocess_env
from benchmarks.compare_summary import medians, ratios
from benchmarks.cpu import CpuMeter
from translate_server.loadgen.client import Api, Target, run_level
from translate_server.loadgen.workload import warmup_items


def rotation(units: Sequence[str], round_index: int) -> list[str]:
    shift = round_index % len(units)
    return list(units[shift:]) + list(units[:shift])


def run_engine_arm(cfg: CompareConfig, round_index: int) -> dict[str, float]:
    out = cfg.out_dir / f"engine-round{round_index}.json"
    log = cfg.out_dir / f"engine-round{round_index}.log"
    command = engine_arm_command(cfg, out)
    with open(log, "wb") as handle:
        code = subprocess.call(
            command, stdout=handle, stderr=subprocess.STDOUT, env=subprocess_env()
        )
    if code != 0:
        tail = log.read_bytes()[-3000:].decode("utf-8", "replace")
        raise RuntimeError(f"engine arm failed ({code}); see {log}:\n{tail}")
    document = msgspec.json.decode(out.read_bytes())
    return measurement(document["stats"], document["cpu"]) | {"startup_s": document["startup_s"]}


async def _measure_http(
    server: Server, target: Target, cfg: CompareConfig, items: list, routes: Sequence[str]
) -> dict[str, float]:
    if cfg.warmup:
        await run_level(
            target,
            warmup_items(items, cfg.warmup),
            concurrency=cfg.concurrency,
            requests=cfg.warmup,
        )
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
    cfg: CompareConfig,
    arm: str,
    round_index: int,
    items: list,
    *,
    command: Callable[[CompareConfig, int], list[str]],
    api: Api,
    logs_requests: bool,
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
    return _run_server_arm(
        cfg, arm, round_index, items, command=service_command, api=arm, logs_requests=True
    )


def run_vllm_arm(cfg: CompareConfig, round_index: int, items: list) -> dict[str, float]:
    return _run_server_arm(
        cfg, "vllm", round_index, items, command=vllm_command, api="chat", logs_requests=False
    )


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
