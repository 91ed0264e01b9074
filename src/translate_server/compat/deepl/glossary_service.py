"""DeepL's glossaries as its routes use them, per API key: v2's of one language pair and v3's of
dictionaries (the same glossaries, in glossaries/store.py), and the glossaries a translation or
a document names, checked as DeepL checks them (`resolve`, `check`); the translation service
applies them by id. Bodies come decoded; entries are parsed and languages checked here."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from translate_server.compat.deepl.glossaries import (
    DictionaryBody,
    DictionaryEntries,
    DictionaryEntriesList,
    Glossary,
    MultilingualGlossary,
    MultilingualGlossaryCreate,
    MultilingualGlossaryList,
    MultilingualGlossaryPatch,
    StoredGlossary,
    distinct_pairs,
    entries_tsv,
    language_pair,
    parse_entries,
)
from translate_server.compat.deepl.protocol import GlossaryCreate, GlossaryList
from translate_server.errors import InvalidRequestError
from translate_server.glossaries.model import DictionaryInfo, GlossaryRecord, base_language
from translate_server.glossaries.store import GlossaryStore

MAX_GLOSSARY_IDS = 5  # DeepL's


class DeepLGlossaries:
    """`owner` gives whose glossaries a key's requests see: its digest (the owner our own
    API sees where keys are configured)."""

    def __init__(self, store: GlossaryStore, owner: Callable[[str], str]) -> None:
        self.store = store
        self.owner = owner

    # -- what translations and documents name ----------------------------------------------
    async def resolve(
        self,
        key: str,
        glossary_id: str | None,
        glossary_ids: Sequence[str] | None,
        source_lang: str | None,
        target_lang: str,
    ) -> list[str]:
        """`glossary_id`, or up to five `glossary_ids` in order (a term of an earlier one wins
        over a later one's), each checked to be the key's and to have a dictionary of the
        pair: the ids the translation applies."""
        if not glossary_ids:
            if glossary_id is None:
                return []
            await self.check(key, glossary_id, source_lang, target_lang)
            return [glossary_id]
        if glossary_id is not None:
            raise InvalidRequestError(
                "glossary_ids cannot be used together with glossary_id.", param="glossary_ids"
            )
        if len(glossary_ids) > MAX_GLOSSARY_IDS:
            raise InvalidRequestError(
                f"glossary_ids may name at most {MAX_GLOSSARY_IDS} glossaries.",
                param="glossary_ids",
            )
        for one in glossary_ids:
            await self.check(key, one, source_lang, target_lang)
        return list(dict.fromkeys(glossary_ids))

    async def check(
        self, key: str, glossary_id: str | None, source_lang: str | None, target_lang: str
    ) -> bool:
        """Whether a request names a glossary, checked as DeepL does: it needs
        `source_lang`, and a dictionary of the request's pair."""
        if glossary_id is None:
            return False
        if source_lang is None:
            raise InvalidRequestError(
                "Use of a glossary requires the source_lang parameter to be specified.",
                param="source_lang",
            )
        glossary = await self.store.describe(self.owner(key), glossary_id)
        pair = (source_lang.split("-")[0].lower(), target_lang.split("-")[0].lower())
        if pair not in glossary.pairs:
            raise InvalidRequestError(
                "The glossary's languages do not match source_lang and target_lang: it has "
                "no dictionary for that pair.",
                param="glossary_id",
            )
        return True

    # -- v2: glossaries of one language pair -----------------------------------------------
    async def list_v2(self, key: str) -> GlossaryList:
        found = await self.store.list(self.owner(key))
        return GlossaryList(glossaries=[_v2(g) for g in found if len(g.dictionaries) == 1])

    async def create_v2(self, key: str, body: GlossaryCreate) -> Glossary:
        entries = parse_entries(body.entries, body.entries_format.lower())
        source = base_language(body.source_lang, "source_lang")
        target = base_language(body.target_lang, "target_lang")
        owner = self.owner(key)
        glossary_id = await self.store.create(owner, body.name, [(source, target, entries)])
        return _v2(await self.store.describe(owner, glossary_id))

    async def describe_v2(self, key: str, glossary_id: str) -> Glossary:
        return (await self._get_v2(key, glossary_id)).info

    async def entries_v2(self, key: str, glossary_id: str) -> str:
        """Its entries as TSV."""
        return entries_tsv((await self._get_v2(key, glossary_id)).entries)

    async def _get_v2(self, key: str, glossary_id: str) -> StoredGlossary:
        """v2's view of a glossary: its one dictionary, entries and all."""
        owner = self.owner(key)
        glossary = await self.store.describe(owner, glossary_id)
        if len(glossary.dictionaries) != 1:
            raise InvalidRequestError(
                f"This glossary has {len(glossary.dictionaries)} dictionaries; the v2 API "
                "serves glossaries of one language pair: use /v3/glossaries.",
                param="glossary_id",
            )
        (pair,) = glossary.dictionaries
        entries = await self.store.entries(owner, glossary_id, pair.source_lang, pair.target_lang)
        return StoredGlossary(info=_v2(glossary), entries=entries)

    async def delete(self, key: str, glossary_id: str) -> None:
        await self.store.delete(self.owner(key), glossary_id)

    # -- v3: glossaries of dictionaries ----------------------------------------------------
    async def list_v3(self, key: str) -> MultilingualGlossaryList:
        found = await self.store.list(self.owner(key))
        return MultilingualGlossaryList(glossaries=[MultilingualGlossary.of(g) for g in found])

    async def create_v3(self, key: str, body: MultilingualGlossaryCreate) -> MultilingualGlossary:
        dictionaries = distinct_pairs([d.parsed() for d in body.dictionaries])
        glossary_id = await self.store.create(self.owner(key), body.name, dictionaries)
        return await self.describe_v3(key, glossary_id)

    async def describe_v3(self, key: str, glossary_id: str) -> MultilingualGlossary:
        return MultilingualGlossary.of(await self.store.describe(self.owner(key), glossary_id))

    async def change_v3(
        self, key: str, glossary_id: str, body: MultilingualGlossaryPatch
    ) -> MultilingualGlossary:
        """Renamed, or its dictionaries merged into (a pair given replaces its dictionary)."""
        if body.name is None and not body.dictionaries:
            raise InvalidRequestError("Give a `name` or `dictionaries` to change.")
        dictionaries = distinct_pairs([d.parsed() for d in body.dictionaries or ()])
        await self.store.merge(self.owner(key), glossary_id, dictionaries, body.name)
        return await self.describe_v3(key, glossary_id)

    async def replace_dictionary(
        self, key: str, glossary_id: str, body: DictionaryBody
    ) -> DictionaryInfo:
        source, target, entries = body.parsed()
        return await self.store.replace(self.owner(key), glossary_id, source, target, entries)

    async def delete_dictionary(
        self, key: str, glossary_id: str, source_lang: str | None, target_lang: str | None
    ) -> None:
        await self.store.delete_dictionary(
            self.owner(key), glossary_id, *language_pair(source_lang, target_lang)
        )

    async def dictionary_entries(
        self, key: str, glossary_id: str, source_lang: str | None, target_lang: str | None
    ) -> DictionaryEntriesList:
        source, target = language_pair(source_lang, target_lang)
        entries = await self.store.entries(self.owner(key), glossary_id, source, target)
        return DictionaryEntriesList(
            dictionaries=[
                DictionaryEntries(
                    source_lang=source, target_lang=target, entries=entries_tsv(entries)
                )
            ]
        )


def _v2(glossary: GlossaryRecord) -> Glossary:
    (pair,) = glossary.dictionaries
    return Glossary(
        glossary_id=glossary.glossary_id,
        name=glossary.name,
        ready=True,
        source_lang=pair.source_lang,
        target_lang=pair.target_lang,
        creation_time=glossary.creation_time,
        entry_count=pair.entry_count,
    )
