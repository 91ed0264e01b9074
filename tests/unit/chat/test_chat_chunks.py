from __future__ import annotations

import json

import pytest

from translate_server.http import sse
from translate_server.openai_api.chat.chunks import ChunkEncoder
from translate_server.openai_api.chat.protocol import ChatCompletionChunk, ChunkChoice, Delta

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
    chunks = ChunkEncoder("chatcmpl-1", 1_700_000_000, "some/model \x00 name")
    expected = sse.event(
        ChatCompletionChunk(
            id="chatcmpl-1",
            object="chat.completion.chunk",
            created=1_700_000_000,
            model="some/model \x00 name",
            choices=[ChunkChoice(index=index, delta=Delta(content=text))],
        )
    )
    assert chunks.text(index, text) == expected
    assert chunks.text(index, text) == expected  # and again, from the cached frame
    assert json.loads(expected[len(b"data: ") :])["choices"][0]["delta"]["content"] == text


def test_the_choices_of_one_stream_keep_their_own_index() -> None:
    chunks = ChunkEncoder("chatcmpl-2", 1, "m")
    first, second = (json.loads(chunks.text(i, f"#{i}")[6:]) for i in (0, 1))
    assert [first["choices"][0]["index"], second["choices"][0]["index"]] == [0, 1]
    assert [first["choices"][0]["delta"]["content"], second["choices"][0]["delta"]["content"]] == [
        "#0",
        "#1",
    ]
