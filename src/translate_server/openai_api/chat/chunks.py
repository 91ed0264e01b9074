"""The chunks of a streamed chat completion, as server-sent events."""

from __future__ import annotations

from translate_server.http import sse
from translate_server.openai_api.chat.protocol import ChatCompletionChunk, ChunkChoice, Delta
from translate_server.wire import Usage


class ChunkEncoder:
    """The chunks of one stream, as server-sent events.

    Nearly every chunk is one choice's new text, and its bytes differ from the stream's other
    such chunks only in that text: they are built as the choice's fixed head and tail around
    the encoded text, which costs a fraction of building and encoding the structs each time
    and gives the same bytes (the head and tail come from encoding the structs once).
    """

    _MARK = "\x00text\x00"

    def __init__(
        self, chunk_id: str, created: int, model: str, fingerprint: str | None = None
    ) -> None:
        self._id, self._created, self._model = chunk_id, created, model
        self._fingerprint = fingerprint
        self._frames: dict[int, tuple[bytes, bytes]] = {}

    def chunk(self, choices: list[ChunkChoice], usage: Usage | None = None) -> bytes:
        return sse.event(
            ChatCompletionChunk(
                id=self._id,
                object="chat.completion.chunk",
                created=self._created,
                model=self._model,
                system_fingerprint=self._fingerprint,
                choices=choices,
                usage=usage,
            )
        )

    def text(self, index: int, text: str) -> bytes:
        frame = self._frames.get(index)
        if frame is None:
            whole = self.chunk([ChunkChoice(index=index, delta=Delta(content=self._MARK))])
            head, _, tail = whole.rpartition(sse.encode_json(self._MARK))
            frame = self._frames[index] = (head, tail)
        return frame[0] + sse.encode_json(text) + frame[1]
