"""The chunks of a streamed chat completion, as typed values (the route writes them as
server-sent events)."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import msgspec

from translate_server.inference.engine import GenerationStep
from translate_server.openai_api.chat.protocol import ChatCompletionChunk, ChunkChoice, Delta
from translate_server.wire import Usage


class ChunkHead(msgspec.Struct, frozen=True, gc=False):
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
        """The chunk a step of new text stands for (see `ChatChunk`)."""
        return self.chunk([ChunkChoice(index=index, delta=Delta(content=text))])


# A chunk, or an engine step yielded as it is when it is only a choice's new text (no finish
# reason, no log probabilities): it stands for `ChunkHead.text_chunk(step.index, step.text)`.
# Nearly every chunk of a stream is one, so none is built for it: the route writes it from
# the choice's frame around the text.
ChatChunk = ChatCompletionChunk | GenerationStep


class ChatStream(msgspec.Struct, frozen=True):
    """A streamed completion: its chunks, in order, after the head they share. A failure
    after the first chunk is raised from `chunks`."""

    head: ChunkHead
    chunks: AsyncGenerator[ChatChunk, None]
