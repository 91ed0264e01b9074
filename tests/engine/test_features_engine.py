"""The translation features end to end on the real engine: `translate-server serve` on the tiny
random-weight model. Its output is gibberish, so these tests check structure (detection,
pieces reassembled in order around the original layout, markup kept, the DeepL client's
view), never quality. The run's shared server, and one of its own for the test that kills it."""

from __future__ import annotations

import json
import re

import deepl
import httpx
import psutil
import pytest

from tests.support.server_process import ServerProcess

GERMAN = "Die Besprechung wurde auf Donnerstagnachmittag verschoben, weil der Raum belegt ist."
PARAGRAPH = (
    "Paragraph {i} tells a short story about a train that leaves the station early. "
    "The passengers are surprised, but they enjoy the ride."
)
PAGE = (
    '<article class="post"><h1 id="title">Good morning</h1>\n'
    '<p>Where is the <a href="/station?x=1&amp;y=2">train station</a>?</p>\n'
    "<ul><li>One ticket</li><li>Two coffees</li></ul>"
    '<pre>keep   this</pre><p translate="no">ACME</p></article>'
)


@pytest.fixture
def server(tiny_server: ServerProcess) -> ServerProcess:
    return tiny_server


@pytest.fixture
def http(server: ServerProcess):
    with httpx.Client(base_url=server.base_url, timeout=120) as client:
        yield client


def test_source_language_is_detected(http: httpx.Client) -> None:
    response = http.post("/translate", json={"text": GERMAN, "target_lang": "en", "max_tokens": 8})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["source_lang"] == "de"
    assert body["detected_source_lang"]["language"] == "de"
    assert isinstance(body["translation"], str)
    assert http.post("/detect", json={"text": GERMAN}).json()["language"] == "de"


def test_a_long_document_is_split_and_reassembled_in_order(http: httpx.Client) -> None:
    paragraphs = [PARAGRAPH.format(i=i) for i in range(8)]
    document = "  " + "\n\n".join(paragraphs) + "\n"
    response = http.post(
        "/translate", json={"text": document, "source_lang": "en", "target_lang": "de"}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    translation = body["translation"]
    # Each paragraph is its own piece: the layout between them comes back verbatim.
    assert translation.startswith("  ") and translation.endswith("\n")
    assert translation.count("\n\n") == len(paragraphs) - 1
    assert body["finish_reason"] in ("stop", "length")
    # Eight engine requests, each with its own prompt.
    assert body["usage"]["prompt_tokens"] > 8 * 40


def test_paragraph_breaks_never_depend_on_the_answers(http: httpx.Client) -> None:
    # Six identical paragraphs of forty identical sentences: pieces of several sentences, the
    # random-weight model's answers garbage (often cut off), every break kept all the same.
    paragraph = " ".join(["The train leaves the station at nine o'clock."] * 40)
    text = "\n\n".join([paragraph] * 6)
    response = http.post(
        "/translate", json={"text": text, "source_lang": "en", "target_lang": "de"}
    )
    assert response.status_code == 200, response.text
    translation = response.json()["translation"]
    assert translation.count("\n\n") == 5
    assert translation.count("\n") == 10


def test_html_keeps_its_markup(http: httpx.Client) -> None:
    response = http.post(
        "/translate",
        json={
            "text": PAGE,
            "source_lang": "en",
            "target_lang": "de",
            "format": "html",
            "max_tokens": 12,
        },
    )
    assert response.status_code == 200, response.text
    translation = response.json()["translation"]
    tags = re.compile(r"<[^>]+>")
    assert tags.findall(translation) == tags.findall(PAGE)
    assert '<pre>keep   this</pre><p translate="no">ACME</p>' in translation


def test_streaming(http: httpx.Client) -> None:
    with http.stream(
        "POST",
        "/translate",
        json={
            "text": "Good morning, how are you today?",
            "source_lang": "en",
            "target_lang": "de",
            "stream": True,
            "max_tokens": 16,
        },
    ) as response:
        assert response.status_code == 200
        events = [
            line[len("data: ") :] for line in response.iter_lines() if line.startswith("data: ")
        ]
    assert events[-1] == "[DONE]"
    final = json.loads(events[-2])
    assert final["finish_reason"] in ("stop", "length")
    assert final["usage"]["completion_tokens"] >= 1


def test_long_conversations_are_tokenized_exactly(http: httpx.Client, tiny_model) -> None:
    """Prompts this long are tokenized in worker threads, several at once; each count is
    the model's own tokenizer's (this model takes 512 tokens, so each is refused with it)."""
    from concurrent.futures import ThreadPoolExecutor

    from transformers import AutoTokenizer

    from translate_server.inference.generation import THREAD_PROMPT_CHARS

    tokenizer = AutoTokenizer.from_pretrained(tiny_model)
    conversations = [
        [{"role": "user", "content": (PARAGRAPH.format(i=i) * 40)[: THREAD_PROMPT_CHARS + 97 * i]}]
        for i in range(4)
    ]
    with ThreadPoolExecutor(len(conversations)) as pool:
        responses = list(
            pool.map(
                lambda messages: http.post(
                    "/v1/chat/completions", json={"model": "tiny", "messages": messages}
                ),
                conversations,
            )
        )
    for messages, response in zip(conversations, responses, strict=True):
        assert response.status_code == 400, response.text
        error = response.json()["error"]
        assert error["code"] == "context_length_exceeded"
        rendered = tokenizer.apply_chat_template(
            messages, tokenize=False, add_generation_prompt=True
        )
        expected = len(tokenizer.encode(rendered, add_special_tokens=False))
        assert f"The input is {expected} tokens long" in error["message"]


def test_deepl_client(server: ServerProcess) -> None:
    translator = deepl.Translator("unused", server_url=server.base_url)
    results = translator.translate_text(
        [GERMAN, "<p>Good <b>morning</b></p>"], target_lang="EN-US", tag_handling="html"
    )
    assert results[0].detected_source_lang == "DE"
    assert re.findall(r"<[^>]+>", results[1].text) == ["<p>", "<b>", "</b>", "</p>"]
    assert "DE" in [language.code for language in translator.get_source_languages()]


def test_engine_processes_die_with_a_killed_server(own_tiny_server: ServerProcess) -> None:
    """SIGKILL gives the server no chance to shut vLLM down; its engine processes must not
    live on as orphans. Slow: it starts a server of its own (20-80 s), since it kills it."""
    server = own_tiny_server
    children = psutil.Process(server.process.pid).children(recursive=True)
    assert children, "vLLM's engine core runs in a child process"
    server.process.kill()
    server.process.wait(timeout=30)
    _, alive = psutil.wait_procs(children, timeout=30)
    assert not alive, [child.pid for child in alive]
