"""A streamed /translate: one text's translation as chunks of its text, in order, while every
piece of it generates at once (the route writes them as server-sent events).

The first piece's engine request is submitted in the handler's own task, before the response
starts; later pieces generate meanwhile and their deltas wait, in a queue each, until their
turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Hashable
from contextlib import aclosing

from translate_server.inference.admission import Admission, Ticket
from translate_server.inference.owned_streams import STARTED, opened
from translate_server.observability.record import RequestRecord
from translate_server.translation.planning.plan import FAN_OUT_SLICE, PieceResult, Plan
from translate_server.translation.protocol import TranslateChunk, TranslateResponse
from translate_server.translation.service.streamed_pieces import StreamedPieces

Source = AsyncIterator[str | PieceResult]


class TranslationStream:
    def __init__(self, pieces: StreamedPieces, admission: Admission) -> None:
        self.pieces = pieces
        self.admission = admission

    async def open(
        self,
        plan: Plan,
        record: RequestRecord,
        deadline: float,
        respond: Callable[[Plan, RequestRecord], TranslateResponse],
    ) -> AsyncGenerator[TranslateChunk, None]:
        """What can fail before the first byte (admission, the first piece's engine request)
        fails here, while an error status can still be sent; later failures are raised from
        the chunks. `respond` builds the final answer whose figures the last chunk carries."""
        misses = plan.misses
        ticket = self.admission.admit(plan.weight(len(misses))) if misses else None
        job = plan.job(record, deadline)
        sources: dict[Hashable, Source] = {}
        tasks: list[asyncio.Task[None]] = []
        try:
            for index, piece in enumerate(misses[1:], 1):
                if index % FAN_OUT_SLICE == 0:
                    await asyncio.sleep(0)  # a slice per loop turn
                queue: asyncio.Queue[str | PieceResult | BaseException] = asyncio.Queue()
                sources[piece.key] = _drained(queue)
                tasks.append(asyncio.create_task(_pump(self.pieces.open(piece, job), queue)))
            if misses:
                sources[misses[0].key] = await self.pieces.open(misses[0], job)
        except BaseException:
            await _stop(tasks)
            if ticket is not None:
                ticket.release()
            raise
        return await opened(_chunks(plan, sources, tasks, ticket, record, respond))


async def _chunks(
    plan: Plan,
    sources: dict[Hashable, Source],
    tasks: list[asyncio.Task[None]],
    ticket: Ticket | None,
    record: RequestRecord,
    respond: Callable[[Plan, RequestRecord], TranslateResponse],
) -> AsyncGenerator[TranslateChunk, None]:
    text = plan.texts[0]
    escape = text.document.escape or (lambda s: s)
    try:
        yield STARTED
        plan.take_cached()
        for part in text.document.layout:
            if isinstance(part, str):
                yield TranslateChunk(delta=part)
                continue
            key = text.slots[part]
            if key in plan.results:
                yield TranslateChunk(delta=text.document.render(part, plan.results[key].text))
                continue
            async for item in sources[key]:
                if isinstance(item, PieceResult):
                    plan.results[key] = item
                else:
                    yield TranslateChunk(delta=escape(item))
        final = respond(plan, record)
        yield TranslateChunk(
            delta="",
            finish_reason=final.finish_reason,
            source_lang=final.source_lang,
            detected_source_lang=final.detected_source_lang,
            glossary_applied=final.glossary_applied,
            warnings=final.warnings,
            quality_estimate=final.quality_estimate,
            needs_review=final.needs_review,
            memory_match=final.memory_match,
            usage=final.usage,
        )
    finally:
        for source in sources.values():
            # Every source is an async generator; its declared type says only AsyncIterator.
            await source.aclose()  # type: ignore[attr-defined]
        await _stop(tasks)
        if ticket is not None:
            ticket.release()


async def _pump(
    opening: Awaitable[Source],
    queue: asyncio.Queue[str | PieceResult | BaseException],
) -> None:
    try:
        source = await opening
        # Every source is an async generator; its declared type says only AsyncIterator.
        async with aclosing(source):  # type: ignore[type-var]
            async for item in source:
                queue.put_nowait(item)
    except Exception as exc:  # noqa: BLE001 - raised again where the stream reads it
        queue.put_nowait(exc)


async def _drained(queue: asyncio.Queue[str | PieceResult | BaseException]) -> Source:
    while True:
        item = await queue.get()
        if isinstance(item, BaseException):
            raise item
        yield item
        if isinstance(item, PieceResult):
            return


async def _stop(tasks: list[asyncio.Task[None]]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
