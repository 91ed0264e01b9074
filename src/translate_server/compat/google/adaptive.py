"""Google's adaptive MT (`adaptiveMtTranslate`) over this server's translation memories: a
dataset is a memory whose closest entries are shown to the model with each text, as
/translate's `memory` does; or the request gives each text's reference sentences itself.

The dataset's language pair, which Google keeps with the dataset, is the memory's where its
entries hold one target language; `referenceSentenceConfig`'s languages name it otherwise."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import TYPE_CHECKING

from translate_server.compat.google.codes import google_code, ours
from translate_server.compat.google.envelope import MISSING
from translate_server.compat.google.protocol import (
    PARAMS_V3,
    GoogleAdaptiveMtRequest,
    GoogleAdaptiveMtResponse,
    GoogleAdaptiveMtTranslation,
)
from translate_server.compat.google.resources import dataset_id, glossary_id, reference_lists
from translate_server.compat.google.service import (
    GoogleTranslator,
    Job,
    Translated,
    language_tag,
    mime_format,
)
from translate_server.errors import InvalidRequestError

if TYPE_CHECKING:
    from translate_server.memory.service import Memories
    from translate_server.observability.record import RequestRecord


class AdaptiveMt:
    def __init__(self, translator: GoogleTranslator, memories: Memories | None) -> None:
        self.translator = translator
        self.memories = memories  # None where this process does not own the stores

    async def translate(
        self, body: GoogleAdaptiveMtRequest, record: RequestRecord, deadline: float, owner: str
    ) -> GoogleAdaptiveMtResponse:
        """`adaptiveMtTranslate`: each text translated with a memory's closest entries, or
        with its own reference sentences, as examples."""
        texts = self.translator.texts(body.content, "content")
        references = reference_lists(body.referenceSentenceConfig, len(texts))
        memory = dataset_id(body.dataset) if body.dataset else None
        if memory is None and references is None:
            raise InvalidRequestError(
                "`dataset` (a translation memory) or `referenceSentenceConfig` is required.",
                param="dataset",
                code=MISSING,
            )
        source, target = await self._adaptive_languages(body, memory, owner)
        job = Job(
            texts=texts,
            target=target,
            source=source,
            format=mime_format(body.mimeType),
            model=None,
            names=PARAMS_V3 | {"text": "content"},
            owner=owner,
            glossary_id=glossary_id(body.glossaryConfig),
            memory=None if references is not None else memory,
        )
        glossed = None
        if job.glossary_id is not None:
            glossed = await self._adapted(job, references, record, deadline)
        translated = await self._adapted(
            replace(job, glossary_id=None), references, record, deadline
        )

        def answers(found: list[Translated]) -> list[GoogleAdaptiveMtTranslation]:
            return [
                GoogleAdaptiveMtTranslation(translatedText=t.text, warnings=t.warnings)
                for t in found
            ]

        return GoogleAdaptiveMtResponse(
            translations=answers(translated),
            languageCode=google_code(target),
            glossaryTranslations=None if glossed is None else answers(glossed),
        )

    async def _adapted(
        self,
        job: Job,
        references: list[tuple[tuple[str, str], ...]] | None,
        record: RequestRecord,
        deadline: float,
    ) -> list[Translated]:
        """The texts translated, those with the same reference sentences in one request."""
        if references is None:
            return await self.translator.translate_job(job, record, deadline)
        groups: dict[tuple[tuple[str, str], ...], list[int]] = {}
        for i, pairs in enumerate(references):
            groups.setdefault(pairs, []).append(i)
        answers: list[Translated | None] = [None] * len(job.texts)
        async with asyncio.TaskGroup() as group:
            tasks = {
                pairs: group.create_task(
                    self.translator.translate_job(
                        replace(job, texts=[job.texts[i] for i in indexes], examples=pairs),
                        record,
                        deadline,
                    )
                )
                for pairs, indexes in groups.items()
            }
        for pairs, indexes in groups.items():
            for i, answer in zip(indexes, tasks[pairs].result(), strict=True):
                answers[i] = answer
        return [answer for answer in answers if answer is not None]

    async def _adaptive_languages(
        self, body: GoogleAdaptiveMtRequest, memory: str | None, owner: str
    ) -> tuple[str | None, str]:
        """(source or None to detect, target): the reference sentences' languages where they
        name them, else the memory's, where its entries hold one target language."""
        config = body.referenceSentenceConfig
        target = config.targetLanguageCode if config else None
        source = config.sourceLanguageCode if config else None
        param = "referenceSentenceConfig.targetLanguageCode"
        if target is None and memory is not None:
            if self.memories is None:
                raise InvalidRequestError(
                    "This server keeps no translation memories.", param="dataset"
                )
            pairs = await self.memories.pairs(owner, memory, param="dataset")
            targets = sorted({ours(t) for _, t in pairs})
            if len(targets) != 1:
                raise InvalidRequestError(
                    f"The dataset holds {len(targets)} target languages "
                    f"({', '.join(targets) or 'no entries'}): name one in "
                    "`referenceSentenceConfig.targetLanguageCode`.",
                    param=param,
                )
            target, param = targets[0], "dataset"
            sources = {ours(s) for s, t in pairs}
            source = source or (sources.pop() if len(sources) == 1 else None)
        if target is None:
            raise InvalidRequestError(
                "`referenceSentenceConfig.targetLanguageCode` is required.",
                param=param,
                code=MISSING,
            )
        found_source = (
            language_tag(source, "referenceSentenceConfig.sourceLanguageCode") if source else None
        )
        return found_source, language_tag(target, param)
