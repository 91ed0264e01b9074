"""Translating one job: the file's segments not yet translated go to the translator in small
batches, `batches_in_flight` at once, and each batch is recorded as soon as it is back (with
each translation's quality estimate), so a job stopped midway resumes where it stood. Once
all are in, the file is rebuilt with the translations that need review marked where its
format can say so (a catalog's fuzzy flag, XLIFF's states), and the job's report lists them
whatever the format. A batch refused or lost for the server's sake
(overloaded, engine unavailable or aborted) is retried after a pause instead of failing the
job. The job's reads and writes wait out a database that is briefly gone (`persist`).

The translator is injected: an async callable `translate(texts, source_lang, target_lang,
options[, contexts]) -> translations` (the app's runs at the engine's low priority); the
segments' contexts are passed only where the format gives them (a localization file's
descriptions and plural categories).
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Protocol

import msgspec

from translate_server.documents.formats import (
    Extracted,
    FormatOptions,
    extract,
    format_named,
)
from translate_server.documents.formats.base import SegmentReview
from translate_server.documents.job import (
    REVIEW_CHARS,
    REVIEW_ITEMS,
    DocumentOptions,
    Job,
    ReviewItem,
    SegmentTranslation,
)
from translate_server.documents.limits import RunnerLimits
from translate_server.documents.persist import persistently
from translate_server.documents.store import JobStore
from translate_server.errors import (
    EngineFailedError,
    OverloadedError,
    StorageUnavailableError,
    UnavailableError,
)


class Translate(Protocol):
    """translate(texts, source_lang, target_lang, options[, contexts]) -> one translation per
    text, with its quality estimate; `contexts` (one per text) only where the file has them."""

    def __call__(
        self,
        texts: list[str],
        source_lang: str | None,
        target_lang: str,
        options: DocumentOptions,
        contexts: list[str | None] | None = None,
        /,
    ) -> Awaitable[list[SegmentTranslation]]: ...


# pin(source_lang, target_lang, segments, options) -> the options with the job's model chosen
Pin = Callable[[str | None, str, Sequence[str], DocumentOptions], DocumentOptions]
# notify(job_id): the job's progress changed (for its watchers)
Notify = Callable[[str], Awaitable[None]]
# remember(job, pairs, options): the options naming a memory of the file's own translations
# (source, target) while the job runs; the memory is gone once the job is.
Remember = Callable[
    [Job, list[tuple[str, str]], DocumentOptions], AbstractAsyncContextManager[DocumentOptions]
]


def _file_memory(
    job: Job,
    extracted: Extracted,
    pending: bool,
    options: DocumentOptions,
    remember: Remember | None,
) -> AbstractAsyncContextManager[DocumentOptions]:
    """The options the job runs with: the file's own translations as its memory where it has
    some, names no memory and is not asked to translate anew; else its options as they are."""
    own = (
        pending
        and bool(extracted.known)
        and options.file_memory
        and options.memory is None
        and not options.retranslate
    )
    if own and remember is not None:
        return remember(job, extracted.known, options)
    return nullcontext(options)


async def translate_job(
    job: Job,
    timings: Timings,
    *,
    store: JobStore,
    translate: Translate,
    limits: RunnerLimits,
    notify: Notify,
    stopped: Callable[[], bool] = lambda: False,
    remember: Remember | None = None,
) -> Job:
    """Extract, translate what is not done yet, rebuild; the job recorded as done.

    `stopped` says whether the runner has stopped the job (the server stops, or the job was
    deleted): a cancellation may come back from below as an error, which then is not the
    job's failure. `remember` makes the file's own translations (a catalog's translated
    entries) the memory of its segments, where the job names no memory of its own."""
    options = msgspec.convert(job.options, DocumentOptions)
    pause = limits.database_retry
    data = await persistently(lambda: store.read_source(job), step="read", first_pause=pause)
    extracted: Extracted = await asyncio.to_thread(
        extract, format_named(job.format), data, format_options(job.target_lang, options)
    )
    timings.mark("extract")
    done = await persistently(lambda: store.translations(job.id), step="read", first_pause=pause)
    pending = [i for i in range(len(extracted.segments)) if i not in done]
    batches = iter(_batches(pending, extracted.segments, limits))

    async def worker(options: DocumentOptions) -> None:
        for indexes in batches:  # one shared iterator: each batch is taken once
            texts = [extracted.segments[i] for i in indexes]
            contexts = [extracted.contexts[i] for i in indexes] if extracted.contexts else None
            translations = dict(
                zip(
                    indexes,
                    await _translate_batch(
                        texts, job, options, translate, limits, stopped, contexts
                    ),
                    strict=True,
                )
            )
            done.update(translations)
            await persistently(
                functools.partial(store.save_translations, job.id, translations),
                step="save",
                first_pause=pause,
            )
            await notify(job.id)

    memory = _file_memory(job, extracted, bool(pending), options, remember)
    async with memory as running_options, asyncio.TaskGroup() as group:
        for _ in range(limits.batches_in_flight):
            group.create_task(worker(running_options))
    timings.mark("translate")
    return await _finish(job, extracted, done, store, timings, pause)


async def _finish(
    job: Job,
    extracted: Extracted,
    done: dict[int, SegmentTranslation],
    store: JobStore,
    timings: Timings,
    pause: float,
) -> Job:
    """The file rebuilt with every translation, those that need review marked where its
    format can say so; the job recorded as done with its report of them."""
    ordered = [done[i] for i in range(len(extracted.segments))]
    result = await asyncio.to_thread(
        extracted.rebuild_reviewed,
        [found.text for found in ordered],
        [SegmentReview(found.estimate, found.needs_review) for found in ordered],
    )
    timings.mark("rebuild")
    flagged = [i for i, found in enumerate(ordered) if found.needs_review]
    report = [review_item(i, extracted.segments[i], ordered[i]) for i in flagged[:REVIEW_ITEMS]]
    return await persistently(
        lambda: store.finish(job.id, result, report, len(flagged)),
        step="finish",
        first_pause=pause,
    )


def review_item(index: int, source: str, found: SegmentTranslation) -> ReviewItem:
    return ReviewItem(
        segment=index,
        estimate=found.estimate,
        source=source[:REVIEW_CHARS],
        translation=found.text[:REVIEW_CHARS],
    )


# A batch refused or lost for the server's sake, not the document's: the engine busy, known
# dead, or aborting its requests because the server drains. Tried again; a server that stops
# meanwhile cancels the job, which then resumes on its next start instead of failing.
_SERVER_TROUBLE = (OverloadedError, EngineFailedError, UnavailableError)


async def _translate_batch(
    texts: list[str],
    job: Job,
    options: DocumentOptions,
    translate: Translate,
    limits: RunnerLimits,
    stopped: Callable[[], bool],
    contexts: list[str | None] | None = None,
) -> list[SegmentTranslation]:
    delay = limits.retry_delay
    attempts = 0
    given = (contexts,) if contexts and any(contexts) else ()
    while True:
        try:
            translations = await translate(texts, job.source_lang, job.target_lang, options, *given)
        except _SERVER_TROUBLE as trouble:
            if stopped():
                raise asyncio.CancelledError from None
            # A database that is gone (the job's memory lives there) is waited for however
            # long it takes, as the job's own writes are; the engine's trouble is not.
            if not isinstance(trouble, StorageUnavailableError):
                attempts += 1
                if attempts > limits.max_retries:
                    raise
            await asyncio.sleep(delay)
            delay = min(delay * 2, 30.0)
            continue
        if len(translations) != len(texts):
            raise RuntimeError(f"{len(translations)} translations for {len(texts)} texts")
        return translations


def format_options(target_lang: str, options: DocumentOptions) -> FormatOptions:
    return FormatOptions(target_lang=target_lang, retranslate=options.retranslate)


def _batches(
    indexes: Sequence[int], segments: Sequence[str], limits: RunnerLimits
) -> list[list[int]]:
    """Consecutive segments, at most `batch_segments` and (unless one alone is longer)
    `batch_chars` characters per batch."""
    batches: list[list[int]] = []
    current: list[int] = []
    chars = 0
    for index in indexes:
        size = len(segments[index])
        if current and (len(current) >= limits.batch_segments or chars + size > limits.batch_chars):
            batches.append(current)
            current, chars = [], 0
        current.append(index)
        chars += size
    if current:
        batches.append(current)
    return batches


@dataclass
class Timings:
    """Seconds spent in each phase of a job, for its log line."""

    start: float
    phases: dict[str, float] = field(default_factory=dict)

    def mark(self, phase: str) -> None:
        now = time.perf_counter()
        self.phases[phase] = round(now - self.start - sum(self.phases.values()), 4)
