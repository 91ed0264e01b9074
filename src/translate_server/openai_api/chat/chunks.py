"""The chunks of a streamed chat completion, as typed values (the route writes them as
server-sent events)."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass

import msgspec

from translate_server.openai_api.chat.protocol import ChatCompletionChunk, ChunkChoice, Delta
from translate_server.wire import Usage


class TextDelta(msgspec.Struct, frozen=True, gc=False):
    """One choice's new text, and nothing else: nearly every chunk of a stream is one, so it
    stays this small (its chunk is `ChunkHead.text_chunk`, and the route can write every such
    chunk of a choice from one frame around the text)."""

    index: int
    text: str


@dataclass(frozen=True, slots=True)
class ChunkHead:
    """What every chunk of one stream carries."""

    id: str
    created: int
    model: str
    fingerprint: str | None = None

    def chunk(self, choices: list[ChunkChoice], usage: Usage | None = None) -> ChatCompletionChunk:
        return ChatCompletionChunk(
            id=self.id,
            object="chat.completion.chunk",
            created=self.created,
            model=self.model,
            system_fingerprint=self.fingerprint,
            choices=choices,
            usage=usage,
        )

    def text_chunk(self, index: int, text: str) -> ChatCompletionChunk:
        """The chunk a `TextDelta(index, text)` stands for."""
        return self.chunk([ChunkChoice(index=index, delta=Delta(content=text))])


ChatChunk = ChatCompletionChunk | TextDelta


@dataclass(frozen=True, slots=True)
class ChatStream:
    """A streamed completion: its chunks, in order, after the head they share. A failure
    after the first chunk is raised from `chunks`."""

    head: ChunkHead
    chunks: AsyncGenerator[ChatChunk, None]
