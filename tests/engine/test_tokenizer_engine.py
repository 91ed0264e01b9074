"""vLLM's /tokenize and /detokenize on the tiny model through a real server: the real
tokenizer's ids round-trip to the text, for a prompt and for a chat."""

from __future__ import annotations

import httpx
import pytest

from tests.support.server_process import ServerProcess

TEXT = "Good morning, how are you today?"


@pytest.fixture
def http(tiny_server: ServerProcess):
    with httpx.Client(base_url=tiny_server.base_url, timeout=60) as http_client:
        yield http_client


def test_a_prompt_round_trips(http: httpx.Client) -> None:
    plain = http.post(
        "/tokenize", json={"model": "tiny", "prompt": TEXT, "add_special_tokens": False}
    ).json()
    assert plain["count"] == len(plain["tokens"]) > 0 and plain["max_model_len"] == 512
    assert http.post("/detokenize", json={"tokens": plain["tokens"]}).json() == {"prompt": TEXT}
    # With the tokenizer's own special tokens (as /v1/completions reads a prompt): the text
    # follows them, and each token has its string.
    full = http.post("/tokenize", json={"prompt": TEXT, "return_token_strs": True}).json()
    assert full["tokens"][-plain["count"] :] == plain["tokens"]
    assert len(full["token_strs"]) == full["count"]
    assert http.post("/detokenize", json={"tokens": full["tokens"]}).json()["prompt"].endswith(TEXT)


def test_a_chat_round_trips_and_counts_as_chat_completions_bill_it(http: httpx.Client) -> None:
    messages = [{"role": "user", "content": TEXT}]
    tokenized = http.post("/tokenize", json={"model": "tiny", "messages": messages}).json()
    prompt = http.post("/detokenize", json={"tokens": tokenized["tokens"]}).json()["prompt"]
    assert TEXT in prompt
    completion = http.post(
        "/v1/chat/completions", json={"model": "tiny", "messages": messages, "max_tokens": 1}
    ).json()
    assert completion["usage"]["prompt_tokens"] == tokenized["count"]


def test_an_id_outside_the_vocabulary_is_a_400(http: httpx.Client) -> None:
    refused = http.post("/detokenize", json={"tokens": [10**9]})
    assert refused.status_code == 400 and refused.json()["error"]["param"] == "tokens"
