"""The real engine on the CPU: when 200 clients give up mid-generation, their engine requests
are aborted (the engine's unfinished count returns to zero) and a new request is served."""

from __future__ import annotations

import asyncio
import time

from translate_server.app import create_app
from translate_server.inference.engine.vllm_engine import create_vllm_engine
from translate_server.settings import load_settings

from tests.support.harness import call_and_leave, eventually, running
from tests.support.stores import own_stores

CLIENTS = 200


async def test_clients_giving_up_abort_their_engine_requests(tiny_model, tmp_path) -> None:
    """Slow: 200 clients on an engine of its own (20-80 s to start), whose 16 slots and queue
    of 200 no other test needs."""
    settings = load_settings(
        {
            **own_stores(tmp_path),
            "model": str(tiny_model),
            "served_model_name": "tiny",
            "quality_guard": False,
            "max_model_len": 512,
            "max_num_seqs": 16,
            "max_queued_requests": CLIENTS,
        },
        environ={},
    )
    app = create_app(settings, lambda: create_vllm_engine(settings.engine))
    async with running(app) as client:
        engine = app.state.services.engine
        body = {
            "messages": [{"role": "user", "content": "Tell me a long story."}],
            "max_tokens": 400,
            "ignore_eos": True,
            "seed": 1,
        }
        # The clients leave once most of their requests are in the engine (however long a
        # loaded machine takes to get them there), one after another over a second.
        leave = asyncio.Event()
        clients = [
            asyncio.create_task(
                call_and_leave(
                    app, "/v1/chat/completions", {**body, "stream": i % 2 == 0}, i / CLIENTS, leave
                )
            )
            for i in range(CLIENTS)
        ]
        await eventually(lambda: engine.unfinished_requests() > CLIENTS // 2, timeout=120)
        in_engine = engine.unfinished_requests()
        leave.set()
        await asyncio.gather(*clients)
        gave_up = time.perf_counter()
        await eventually(lambda: not engine.unfinished_requests(), timeout=30, every=0.02)
        drained_after = time.perf_counter() - gave_up
        assert app.state.services.admission.in_flight == 0

        started = time.perf_counter()
        response = await client.post(
            "/v1/chat/completions",
            json={"messages": [{"role": "user", "content": "hi"}], "max_tokens": 4, "seed": 2},
        )
        served_after = time.perf_counter() - started
        assert response.status_code == 200
        assert response.json()["usage"]["completion_tokens"] >= 1
    print(
        f"\ncancellation: {in_engine} requests in the engine when {CLIENTS} clients gave "
        f"up; unfinished back to 0 {drained_after:.2f} s after the last left; a new "
        f"request served in {served_after:.2f} s"
    )
    assert in_engine > CLIENTS // 2  # the clients really were mid-generation
