"""`translate-server serve` on the tiny model as a real process, driven by the OpenAI SDK and
plain HTTP: the run's shared server, and one of its own for the test that stops it."""

from __future__ import annotations

import os
import re

import httpx
import openai
import psutil
import pytest

from tests.support.server_process import ServerProcess

MESSAGES = [{"role": "user", "content": "Translate to German: Good morning, how are you?"}]
# Drain (nothing in flight) plus the engine's own shutdown: well inside the default grace.
EXIT_TIMEOUT = 30.0


@pytest.fixture
def server(tiny_server: ServerProcess) -> ServerProcess:
    return tiny_server


@pytest.fixture
def client(server: ServerProcess) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{server.base_url}/v1", api_key="unused", max_retries=0)


@pytest.fixture
def http(server: ServerProcess):
    with httpx.Client(base_url=server.base_url, timeout=60) as http_client:
        yield http_client


def chat(client: openai.OpenAI, **kwargs):
    kwargs.setdefault("model", "tiny")
    kwargs.setdefault("messages", MESSAGES)
    kwargs.setdefault("max_tokens", 16)
    kwargs.setdefault("seed", 1)
    return client.chat.completions.create(**kwargs)


def test_health(http: httpx.Client):
    response = http.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_chat_completion(client: openai.OpenAI):
    completion = chat(client)
    assert completion.object == "chat.completion"
    assert completion.model == "tiny"
    [choice] = completion.choices
    assert choice.message.role == "assistant"
    assert choice.message.content
    assert choice.finish_reason in ("stop", "length")
    assert completion.usage.prompt_tokens > 0
    assert 0 < completion.usage.completion_tokens <= 16
    total = completion.usage.prompt_tokens + completion.usage.completion_tokens
    assert completion.usage.total_tokens == total


def test_streaming_matches_the_plain_answer(client: openai.OpenAI):
    plain = chat(client, seed=2)
    chunks = list(chat(client, seed=2, stream=True, stream_options={"include_usage": True}))
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text
    assert text == plain.choices[0].message.content
    assert chunks[-1].choices == []
    assert chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens == plain.usage.completion_tokens
    assert all(c.usage is None for c in chunks[:-1])
    reasons = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert reasons[-1] == plain.choices[0].finish_reason


def test_n_choices(client: openai.OpenAI):
    completion = chat(client, n=2, seed=3)
    assert [c.index for c in completion.choices] == [0, 1]
    assert all(c.message.content for c in completion.choices)


def test_stop(client: openai.OpenAI):
    full = chat(client, seed=4, max_tokens=40, extra_body={"ignore_eos": True})
    text = full.choices[0].message.content
    stop = next(text[i : i + 2] for i in range(6, len(text) - 2) if text[i : i + 2].strip())
    cut = chat(client, seed=4, max_tokens=40, stop=[stop], extra_body={"ignore_eos": True})
    assert cut.choices[0].message.content == text[: text.index(stop)]
    assert cut.choices[0].finish_reason == "stop"


def test_max_tokens_gives_length(client: openai.OpenAI):
    completion = chat(client, max_tokens=5, seed=5)
    assert completion.choices[0].finish_reason == "length"
    assert completion.usage.completion_tokens == 5


def test_unknown_model_is_not_found(client: openai.OpenAI):
    with pytest.raises(openai.NotFoundError):
        chat(client, model="no-such-model")


def test_vllm_sampling_extras_are_honoured(client: openai.OpenAI):
    extras = {"top_k": 5, "repetition_penalty": 1.1, "min_tokens": 3, "ignore_eos": True}
    completion = chat(client, max_tokens=24, seed=6, extra_body=extras)
    assert completion.usage.completion_tokens == 24
    assert completion.choices[0].finish_reason == "length"
    with pytest.raises(openai.BadRequestError):
        chat(client, extra_body={"top_k": -2})


def test_translate_one_text(http: httpx.Client):
    response = http.post(
        "/translate",
        json={"text": "Good morning", "source_lang": "en", "target_lang": "de", "max_tokens": 16},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert isinstance(body["translation"], str)
    assert body["source_lang"] == "en"
    assert body["target_lang"] == "de"
    assert body["model"] == "tiny"
    usage = body["usage"]
    assert usage["prompt_tokens"] > 0
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


def test_translate_list_keeps_the_order(http: httpx.Client):
    texts = ["Good morning", "Where is the train station?", "Thank you"]

    def translate(text):
        payload = {"text": text, "source_lang": "en", "target_lang": "es", "max_tokens": 12}
        response = http.post("/translate", json=payload)
        assert response.status_code == 200, response.text
        return response.json()

    batch = translate(texts)
    assert len(batch["translations"]) == 3
    # Translation decodes greedily: each text alone gives what it gave in the list.
    assert batch["translations"] == [translate(text)["translation"] for text in texts]
    assert batch["usage"]["prompt_tokens"] > 0


def test_metrics_expose_service_and_engine(http: httpx.Client):
    response = http.get("/metrics")
    assert response.status_code == 200
    lines = response.text.splitlines()
    assert any(line.startswith("translate_requests_total") for line in lines)
    assert any(line.startswith("vllm:time_to_first_token_seconds_count{") for line in lines)
    assert any('model_name="tiny"' in line for line in lines if line.startswith("vllm:"))


def test_startup_heap_is_frozen(server: ServerProcess):
    # The objects vLLM, torch and transformers leave behind are never walked by a full
    # collection: hundreds of thousands of them.
    output = re.sub(r"\x1b\[[0-9;]*m", "", server.output())  # the console log's colours
    match = re.search(r"startup_heap_frozen\s+objects=(\d+)", output)
    assert match is not None, output[-3000:]
    assert int(match.group(1)) > 100_000


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="placement needs two cores")
def test_the_serving_process_has_a_core_the_engine_does_not_use(server: ServerProcess):
    # `--cpu-placement split`, the default: the serving process on the last core, vLLM's
    # EngineCore and worker (its compute threads bound by vLLM) on the others.
    front_end = {max(os.sched_getaffinity(0))}

    def threads(pid: int) -> dict[int, set[int]]:
        return {
            int(task): os.sched_getaffinity(int(task)) for task in os.listdir(f"/proc/{pid}/task")
        }

    serving = threads(server.process.pid)
    assert set(map(frozenset, serving.values())) == {frozenset(front_end)}
    engine = [psutil.Process(server.process.pid).children(recursive=True)]
    engine_threads = {
        tid: cores for child in engine[0] for tid, cores in threads(child.pid).items()
    }
    assert len(engine[0]) >= 2  # EngineCore and its worker
    assert all(cores.isdisjoint(front_end) for cores in engine_threads.values()), engine_threads
    assert "cpu_placement" in server.output()


def test_sigterm_exits_cleanly(own_tiny_server: ServerProcess):
    """Slow: it starts a server of its own (20-80 s), since it stops it. The server has
    answered a request first, as a server in service has."""
    server = own_tiny_server
    client = openai.OpenAI(base_url=f"{server.base_url}/v1", api_key="unused", max_retries=0)
    assert chat(client, max_tokens=4).choices[0].message.content is not None
    assert server.terminate(timeout=EXIT_TIMEOUT) == 0, server.output()
