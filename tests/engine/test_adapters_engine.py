"""LoRA adapters on the real engine: a peft adapter of the tiny model changes its answers,
batched beside the base model, without leaking into the base model's."""

from __future__ import annotations

import asyncio

import pytest
import pytest_asyncio

from translate_server.app import create_app
from translate_server.inference.engine.protocol import (
    EngineRejectedError,
    LoraAdapter,
    SamplingOptions,
)
from translate_server.settings import EngineSettings, load_settings

from tests.support.harness import running
from tests.support.tiny_lora import build_tiny_lora

pytestmark = pytest.mark.asyncio(loop_scope="module")

PROMPT = "Good morning, how are you?"


@pytest.fixture(scope="module")
def lora_dir(tiny_model, tmp_path_factory):
    return build_tiny_lora(tiny_model, tmp_path_factory.mktemp("lora") / "tiny-lora")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def engine(tiny_model, lora_dir):
    from translate_server.inference.engine.vllm_engine import create_vllm_engine

    settings = EngineSettings(
        model=str(tiny_model),
        served_model_name="tiny",
        max_model_len=256,
        max_num_seqs=4,
        enable_lora=True,
        max_loras=2,
        max_lora_rank=8,
    )
    created = create_vllm_engine(settings)
    yield created
    created.shutdown()


async def answer(engine, adapter: LoraAdapter | None, request_id: str) -> str:
    options = SamplingOptions(max_tokens=16, temperature=0.0, ignore_eos=True, adapter=adapter)
    prompt = engine.tokenize_text(PROMPT)
    parts = []
    async for output in engine.generate(prompt, options, request_id):
        parts += [step.text for step in output.steps]
    return "".join(parts)


async def test_the_adapter_changes_the_answer_and_the_base_model_stays_itself(engine, lora_dir):
    """Slow as the module's first test: LoRA is an engine setting, so the module starts an
    engine of its own (20-80 s)."""
    adapter = LoraAdapter("tiny-lora", 1, str(lora_dir))
    await engine.add_adapter(adapter)
    base_alone = await answer(engine, None, "base-alone")
    adapted_alone = await answer(engine, adapter, "adapted-alone")
    assert adapted_alone != base_alone
    # In one batch, each request keeps its own weights.
    base, adapted = await asyncio.gather(
        answer(engine, None, "base-batched"), answer(engine, adapter, "adapted-batched")
    )
    assert (base, adapted) == (base_alone, adapted_alone)
    await engine.remove_adapter(adapter)
    assert await answer(engine, None, "base-after") == base_alone


async def test_an_adapter_the_engine_cannot_load_is_refused_and_the_engine_lives_on(
    engine, tmp_path
):
    with pytest.raises(EngineRejectedError, match="did not load"):
        await engine.add_adapter(LoraAdapter("missing", 7, str(tmp_path)))
    assert engine.is_alive
    assert await answer(engine, None, "after-refusal")


# Last in this module: the app shuts the module's engine down when it stops.
async def test_the_app_routes_requests_to_the_adapter_on_the_real_engine(
    engine, lora_dir, tmp_path
):
    settings = load_settings(
        {
            "served_model_name": "tiny",
            "lora": [f"tiny-de={lora_dir}@en-de"],
            "max_loras": 2,
            "max_lora_rank": 8,
            "quality_guard": False,
            "document_dir": str(tmp_path / "documents"),
            "glossary_db": str(tmp_path / "glossaries.sqlite3"),
            "memory_db": str(tmp_path / "memories.sqlite3"),
        },
        environ={},
    )
    async with running(create_app(settings, lambda: engine)) as client:
        routed = await client.post(
            "/translate", json={"text": "Good morning", "source_lang": "en", "target_lang": "de"}
        )
        assert routed.status_code == 200, routed.text
        assert routed.json()["model"] == "tiny-de"
        answers = {}
        for model in ("tiny", "tiny-de"):
            response = await client.post(
                "/v1/chat/completions",
                json={
                    "model": model,
                    "messages": [{"role": "user", "content": PROMPT}],
                    "max_tokens": 16,
                    "temperature": 0,
                    "ignore_eos": True,
                },
            )
            assert response.status_code == 200, response.text
            assert response.json()["model"] == model
            answers[model] = response.json()["choices"][0]["message"]["content"]
        assert answers["tiny"] != answers["tiny-de"]
