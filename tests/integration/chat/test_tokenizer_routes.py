"""vLLM's /tokenize, /detokenize and /version (`vllm/entrypoints/serve/tokenize/protocol.py`
and `serve/instrumentator/basic.py`, vLLM 0.32), over the engine double: the request and
answer shapes of vLLM's own server, for the served model and its adapters."""

from __future__ import annotations

from pathlib import Path

import pytest

from translate_server import __version__

from tests.support.fakes import FakeEngine
from tests.support.harness import running
from tests.support.tiny_lora import fake_adapter_dir

ADMIN = {"Authorization": "Bearer admin-secret"}


async def test_a_prompt_round_trips(client) -> None:
    text = "Die Besprechung wurde auf Donnerstag verschoben."
    tokenized = await client.post("/tokenize", json={"model": "fake-model", "prompt": text})
    assert tokenized.status_code == 200
    body = tokenized.json()
    # vLLM's TokenizeResponse: `token_strs` only when asked for.
    assert set(body) == {"count", "max_model_len", "tokens"}
    assert body["count"] == len(body["tokens"]) and body["max_model_len"] == 2048
    detokenized = await client.post("/detokenize", json={"tokens": body["tokens"]})
    assert detokenized.json() == {"prompt": text}
    with_strings = await client.post("/tokenize", json={"prompt": text, "return_token_strs": True})
    assert "".join(with_strings.json()["token_strs"]) == text


async def test_a_chat_round_trips_as_chat_completions_render_it(client, engine) -> None:
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "Hello there"}]},
    ]
    tokenized = (await client.post("/tokenize", json={"messages": messages})).json()
    rendered = engine.tokenize_chat(
        [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello there"}]
    )
    assert tokenized["tokens"] == rendered and tokenized["count"] == len(rendered)
    prompt = (await client.post("/detokenize", json={"tokens": tokenized["tokens"]})).json()
    assert prompt["prompt"].endswith(
        "<|im_start|>user\nHello there<|im_end|>\n<|im_start|>assistant\n"
    )
    # The count is the prompt tokens a chat completion of these messages is billed.
    completion = await client.post(
        "/v1/chat/completions", json={"model": "fake-model", "messages": messages}
    )
    assert completion.json()["usage"]["prompt_tokens"] == tokenized["count"]


async def test_an_adapter_is_a_model_and_an_unknown_one_a_404(make_app, tmp_path: Path) -> None:
    async with running(make_app(enable_lora=True, admin_key="admin-secret")) as client:
        loaded = await client.post(
            "/admin/adapters",
            json={"name": "de", "path": str(fake_adapter_dir(tmp_path, "de"))},
            headers=ADMIN,
        )
        assert loaded.status_code == 201
        base = (await client.post("/tokenize", json={"prompt": "Hi you"})).json()
        adapted = (await client.post("/tokenize", json={"model": "de", "prompt": "Hi you"})).json()
        assert adapted == base  # an adapter shares its model's tokenizer
        back = await client.post("/detokenize", json={"model": "de", "tokens": base["tokens"]})
        assert back.json() == {"prompt": "Hi you"}
        for path, body in (
            ("/tokenize", {"model": "nope", "prompt": "Hi"}),
            ("/detokenize", {"model": "nope", "tokens": [0]}),
        ):
            missing = await client.post(path, json=body)
            assert missing.status_code == 404
            assert missing.json()["error"]["code"] == "model_not_found"


@pytest.mark.parametrize(
    ("path", "body", "param"),
    [
        ("/tokenize", {}, "prompt"),
        ("/tokenize", {"prompt": "Hi", "messages": [{"role": "user", "content": "Hi"}]}, "prompt"),
        ("/tokenize", {"messages": []}, "messages"),
        (
            "/tokenize",
            {"messages": [{"role": "user", "content": "Hi"}], "add_generation_prompt": False},
            "add_generation_prompt",
        ),
        (
            "/tokenize",
            {"messages": [{"role": "user", "content": "Hi"}], "chat_template": "{{ x }}"},
            "chat_template",
        ),
        ("/detokenize", {"tokens": [-1]}, "tokens[0]"),
        ("/detokenize", {"tokens": [10**9]}, "tokens"),
        ("/detokenize", {"tokens": "12"}, "tokens"),
        ("/detokenize", {"tokens": list(range(2049))}, "tokens"),
    ],
)
async def test_bad_input_is_an_openai_400(client, path: str, body: dict, param: str) -> None:
    await client.post("/tokenize", json={"prompt": "warm up the vocabulary " * 8})
    refused = await client.post(path, json=body)
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"]["param"] == param


async def test_messages_on_a_base_model_are_refused_as_chat_is(make_app) -> None:
    async with running(make_app(FakeEngine(chat_template=False))) as client:
        refused = await client.post(
            "/tokenize", json={"messages": [{"role": "user", "content": "Hi"}]}
        )
        assert refused.status_code == 400
        assert refused.json()["error"]["code"] == "chat_not_supported"
        assert (await client.post("/tokenize", json={"prompt": "Hi"})).status_code == 200


async def test_version_is_open_and_keys_guard_the_tokenizer(make_app) -> None:
    async with running(make_app(api_key=["secret"])) as client:
        version = await client.get("/version")
        assert version.status_code == 200 and version.json() == {"version": __version__}
        assert (await client.post("/tokenize", json={"prompt": "Hi"})).status_code == 401
        keyed = await client.post(
            "/tokenize", json={"prompt": "Hi"}, headers={"Authorization": "Bearer secret"}
        )
        assert keyed.status_code == 200
