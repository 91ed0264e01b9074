"""The stored glossaries a request names (`glossary_id`), as the planner applies them: for each
source language, the indexes of their dictionaries into the request's target language.

Per request this costs one lookup of each glossary's revision; its dictionaries' entries are
read and indexed only when that revision has no index yet (in a worker thread: ten thousand
terms take milliseconds)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from translate_server.errors import InvalidRequestError
from translate_server.text.languages import Language, requested_language
from translate_server.translation.planning.glossary import (
    GlossaryIndex,
    GlossaryIndexes,
    StoredTerms,
    base_tag,
)
from translate_server.translation.planning.plan import is_auto
from translate_server.translation.planning.ports import GlossaryLookup
from translate_server.translation.protocol import TranslateRequest

MAX_GLOSSARY_IDS = 5


class StoredGlossaries:
    def __init__(self, lookup: GlossaryLookup | None, indexes: GlossaryIndexes) -> None:
        self.lookup = lookup
        self.indexes = indexes

    async def terms_for(
        self, request: TranslateRequest, target: Language, owner: str
    ) -> Mapping[str, StoredTerms] | None:
        """Source base language -> the terms the request's glossaries give texts in it, or
        None where it names none. An unknown glossary, or another owner's, is a 404."""
        ids = _ids(request.glossary_id)
        if not ids:
            return None
        if self.lookup is None:
            raise InvalidRequestError(
                "This server keeps no glossaries.", param="glossary_id", code="glossary_not_found"
            )
        source = None
        if not is_auto(request.source_lang):
            source = base_tag(requested_language(request.source_lang, "source_lang").tag)
        wanted = base_tag(target.tag)
        by_source: dict[str, list[GlossaryIndex]] = {}
        for glossary_id in ids:
            glossary = await self.lookup.describe(owner, glossary_id)
            sources = sorted(s for s, t in glossary.pairs if t == wanted and source in (None, s))
            if source is not None and not sources:
                raise InvalidRequestError(
                    f"The glossary {glossary_id} has no dictionary from {source} into {wanted}.",
                    param="glossary_id",
                    code="glossary_pair_missing",
                )
            for found in sources:
                index = await self._index(owner, glossary_id, glossary.revision, found, wanted)
                by_source.setdefault(found, []).append(index)
        return {source: StoredTerms(indexes) for source, indexes in by_source.items()}

    async def check(self, owner: str, glossary_id: str) -> None:
        """The glossary is the owner's (else the 404), for a job that will name it."""
        if self.lookup is None:
            raise InvalidRequestError(
                "This server keeps no glossaries.", param="glossary_id", code="glossary_not_found"
            )
        await self.lookup.describe(owner, glossary_id)

    async def _index(
        self, owner: str, glossary_id: str, revision: int, source: str, target: str
    ) -> GlossaryIndex:
        assert self.lookup is not None
        key = (glossary_id, revision, source, target)
        index = self.indexes.get(key)
        if index is None:
            entries = await self.lookup.entries(owner, glossary_id, source, target)
            index = await asyncio.to_thread(GlossaryIndex, entries)
            self.indexes.put(key, index)
        return index


def _ids(named: str | list[str] | None) -> list[str]:
    if named is None:
        return []
    ids = [named] if isinstance(named, str) else named
    if len(ids) > MAX_GLOSSARY_IDS:
        raise InvalidRequestError(
            f"`glossary_id` names at most {MAX_GLOSSARY_IDS} glossaries.", param="glossary_id"
        )
    return list(dict.fromkeys(ids))
