from __future__ import annotations

import json

import pytest

from translate_server.http import sse
from translate_server.inference.engine import GenerationStep
from translate_server.openai_api.chat.chunks import ChunkHead
from translate_server.openai_api.chat.protocol import ChatCompletionChunk, ChunkChoice, Delta
from translate_server.openai_api.chat.routes import chunk_encoder

TEXTS = [
    "",
    " tok",
    "Hallo, Welt!",
    'quote " backslash \\ slash /',
    "line\nbreak\ttab",
    "\x00\x1f control",
    "Übersetzung 翻訳 🚀",
    "\u2028\u2029",
    "\ud7ff\ue000",
]


@pytest.mark.parametrize("index", [0, 3])
@pytest.mark.parametrize("text", TEXTS)
def test_a_text_chunk_is_the_bytes_of_its_struct(index: int, text: str) -> None:
    encode = chunk_encoder(ChunkHead("chatcmpl-1", 1_700_000_000, "some/model \x00 name"))
    expected = sse.event(
        ChatCompletionChunk(
            id="chatcmpl-1",
            object="chat.completion.chunk",
            created=1_700_000_000,
            model="some/model \x00 name",
            choices=[ChunkChoice(index=index, delta=Delta(content=text))],
        )
    )
    assert encode(GenerationStep(index, text, 1)) == expected
    assert encode(GenerationStep(index, text, 1)) == expected  # and again, from the cached frame
    assert json.loads(expected[len(b"data: ") :])["choices"][0]["delta"]["content"] == text


def test_the_choices_of_one_stream_keep_their_own_index() -> None:
    encode = chunk_encoder(ChunkHead("chatcmpl-2", 1, "m"))
    first, second = (json.loads(encode(GenerationStep(i, f"#{i}", 1))[6:]) for i in (0, 1))
    assert [first["choices"][0]["index"], second["choices"][0]["index"]] == [0, 1]
    assert [first["choices"][0]["delta"]["content"], second["choices"][0]["delta"]["content"]] == [
        "#0",
        "#1",
    ]


def test_a_whole_chunk_is_encoded_as_it_is() -> None:
    head = ChunkHead("chatcmpl-3", 2, "m", "fp_1")
    chunk = head.chunk([ChunkChoice(index=0, delta=Delta(role="assistant", content=""))])
    assert chunk_encoder(head)(chunk) == sse.event(chunk)
    assert json.loads(sse.event(chunk)[6:])["system_fingerprint"] == "fp_1"
