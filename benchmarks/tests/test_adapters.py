"""The adapters benchmark's pure parts: its workload, the routing of texts to servers, the
memory read from smaps_rollup and its tables, without any engine or server."""

from __future__ import annotations

import asyncio
import math

import pytest
from aiohttp import web

from benchmarks.adapters import bodies, run_routed
from benchmarks.adapters_memory import parse_rollup, trees_memory
from benchmarks.adapters_workload import (
    ARM_COLUMNS,
    PAIRS,
    decode_rates,
    goal_line,
    markdown_table,
    mixed_workload,
    pair_of,
    route,
    split_by_pair,
)
from translate_server.loadgen.stats import RequestResult
from translate_server.loadgen.workload import WorkloadSpec, make_workload


def test_the_mixed_workload_holds_only_the_three_pairs_in_the_loadgen_order() -> None:
    spec = WorkloadSpec(size=60, seed=3)
    items = mixed_workload(spec)
    assert len(items) == 60
    assert {pair_of(item) for item in items} == set(PAIRS)
    # The same texts `bench run` sends with this seed, other pairs left out.
    everything = make_workload(WorkloadSpec(size=items[-1].index + 1, seed=3))
    assert items == [item for item in everything if pair_of(item) in PAIRS]
    assert all(10 <= item.input_tokens <= 200 for item in items)


def test_each_text_goes_to_its_pairs_server_and_the_split_keeps_every_text() -> None:
    items = mixed_workload(WorkloadSpec(size=30, seed=1))
    servers = {"en-de": "http://de", "en-fr": "http://fr", "en-es": "http://es"}
    urls = route(items, servers)
    assert [url.removeprefix("http://") for url in urls] == [i.target_lang for i in items]
    split = split_by_pair(items)
    assert sorted(i.index for texts in split.values() for i in texts) == [i.index for i in items]
    assert all(pair_of(i) == pair for pair, texts in split.items() for i in texts)
    with pytest.raises(KeyError):
        route(items, {"en-de": "http://de"})
    with pytest.raises(ValueError, match="no texts"):
        mixed_workload(WorkloadSpec(size=2), ("xx-yy",))


def test_a_base_request_names_the_base_model_and_an_adapter_request_names_none() -> None:
    items = mixed_workload(WorkloadSpec(size=2))
    [(_, base)] = bodies(items[:1], ["http://a"], "base")
    [(target, routed)] = bodies(items[:1], ["http://b"])
    assert target.url == "http://b/translate"
    assert b'"model":"base"' in base and b'"model"' not in routed
    assert b'"stream":true' in routed and routed.startswith(b"{")


def test_smaps_rollup_fields_are_read_in_bytes_and_a_tree_is_summed() -> None:
    text = "55d0-7ffd ---p 00000000 00:00 0 [rollup]\nRss:  2048 kB\nPss:  1024 kB\nX: y\n"
    assert parse_rollup(text) == {"Rss": 2048 * 1024, "Pss": 1024 * 1024}
    import os

    mine = trees_memory([os.getpid()])
    assert mine["processes"] >= 1 and 0 < mine["pss_gib"] <= mine["rss_gib"]
    assert trees_memory([2**22 + 7])["processes"] == 0  # no such process


def test_decode_rates_leave_out_failures_and_single_token_answers() -> None:
    ok = RequestResult(True, 200, 0.0, 2.0, ttft_s=1.0, output_tokens=11)
    single = RequestResult(True, 200, 0.0, 1.0, ttft_s=1.0, output_tokens=1)
    failed = RequestResult(False, 500, 0.0, 1.0, output_tokens=0)
    assert decode_rates([ok, single, failed]) == [10.0]


def test_the_table_and_the_goal_line_say_what_was_measured() -> None:
    one = {"servers": 1, "processes": 3, "pss_gib": 1.5, "rss_gib": 1.8, "requests_per_s": 2.0}
    one |= {"output_tokens_per_s": 120.0, "latency_p95_ms": 900.0, "errors": 0}
    three = one | {"servers": 3, "pss_gib": 4.0, "output_tokens_per_s": 100.0}
    rows = [("one", one), ("three", three | {"ttft_p95_ms": math.nan})]
    table = markdown_table("arm", rows, ARM_COLUMNS)
    lines = table.splitlines()
    assert lines[0].startswith("| arm | servers |") and len(lines) == 4
    assert lines[2] == "| one | 1 | 3 | 1.50 | 1.80 | 2.00 | 120.0 | - | 900 | - | 0 |"
    assert "1.20x output tokens/s" in goal_line(one, three)
    assert goal_line(one, three).endswith("met") and "NOT" not in goal_line(one, three)
    assert goal_line(one | {"pss_gib": 2.5}, three).endswith("NOT met")


async def test_routed_requests_reach_their_own_servers_all_once() -> None:
    seen: dict[str, list[bytes]] = {"de": [], "fr": []}

    def handler(name: str):
        async def answer(request: web.Request) -> web.Response:
            seen[name].append(await request.read())
            await asyncio.sleep(0.01)
            return web.json_response({"usage": {"prompt_tokens": 3, "completion_tokens": 5}})

        return answer

    runners, urls = [], {}
    for name in seen:
        app = web.Application()
        app.router.add_post("/translate", handler(name))
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        runners.append(runner)
        urls[f"en-{name}"] = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"
    try:
        items = [i for i in mixed_workload(WorkloadSpec(size=40)) if i.target_lang != "es"]
        results, elapsed = await run_routed(bodies(items, route(items, urls)), concurrency=4)
    finally:
        for runner in runners:
            await runner.cleanup()
    assert len(results) == len(items) and all(r.ok and r.output_tokens == 5 for r in results)
    assert len(seen["de"]) == sum(i.target_lang == "de" for i in items) > 0
    assert len(seen["fr"]) == sum(i.target_lang == "fr" for i in items) > 0
    assert elapsed > 0
