"""DeepL's glossaries as its routes use them, per API key: v2's of one language pair and v3's of
dictionaries (the same glossaries, in glossary_store.py), and the entries a translation or a
document names (`resolve`, `entries_for`). Bodies come decoded; entries are parsed and
languages checked here."""

from __future__ import annotations

from collections.abc import Sequence

from translate_server.compat.deepl.glossaries import (
    DictionaryBody,
    DictionaryEntries,
    DictionaryEntriesList,
    DictionaryInfo,
    Glossary,
    MultilingualGlossary,
    MultilingualGlossaryCreate,
    MultilingualGlossaryList,
    MultilingualGlossaryPatch,
    base_language,
    distinct_pairs,
    entries_tsv,
    language_pair,
    parse_entries,
)
from translate_server.compat.deepl.glossary_store import GlossaryStore
from translate_server.compat.deepl.protocol import GlossaryCreate, GlossaryList
from translate_server.errors import InvalidRequestError


class DeepLGlossaries:
    def __init__(self, store: GlossaryStore) -> None:
        self.store = store

    # -- what translations and documents name ----------------------------------------------
    async def resolve(
        self,
        key: str,
        glossary_id: str | None,
        glossary_ids: Sequence[str] | None,
        source_lang: str | None,
        target_lang: str,
    ) -> dict[str, str] | None:
        """The terms of `glossary_id`, or of up to five `glossary_ids` in order, for the pair."""
        return await self.store.entries_of_all(
            key, glossary_id, glossary_ids, source_lang, target_lang
        )

    async def entries_for(
        self, key: str, glossary_id: str | None, source_lang: str | None, target_lang: str
    ) -> dict[str, str] | None:
        return await self.store.entries_for(key, glossary_id, source_lang, target_lang)

    # -- v2: glossaries of one language pair -----------------------------------------------
    async def list_v2(self, key: str) -> GlossaryList:
        return GlossaryList(glossaries=await self.store.list(key))

    async def create_v2(self, key: str, body: GlossaryCreate) -> Glossary:
        entries = parse_entries(body.entries, body.entries_format.lower())
        source = base_language(body.source_lang, "source_lang")
        target = base_language(body.target_lang, "target_lang")
        return await self.store.create_v2(key, body.name, source, target, entries)

    async def describe_v2(self, key: str, glossary_id: str) -> Glossary:
        return (await self.store.get(key, glossary_id)).info

    async def entries_v2(self, key: str, glossary_id: str) -> str:
        """Its entries as TSV."""
        return entries_tsv((await self.store.get(key, glossary_id)).entries)

    async def delete(self, key: str, glossary_id: str) -> None:
        await self.store.delete(key, glossary_id)

    # -- v3: glossaries of dictionaries ----------------------------------------------------
    async def list_v3(self, key: str) -> MultilingualGlossaryList:
        return MultilingualGlossaryList(glossaries=await self.store.list_v3(key))

    async def create_v3(self, key: str, body: MultilingualGlossaryCreate) -> MultilingualGlossary:
        dictionaries = distinct_pairs([d.parsed() for d in body.dictionaries])
        glossary_id = await self.store.create(key, body.name, dictionaries)
        return await self.store.describe(key, glossary_id)

    async def describe_v3(self, key: str, glossary_id: str) -> MultilingualGlossary:
        return await self.store.describe(key, glossary_id)

    async def change_v3(
        self, key: str, glossary_id: str, body: MultilingualGlossaryPatch
    ) -> MultilingualGlossary:
        """Renamed, or its dictionaries merged into (a pair given replaces its dictionary)."""
        if body.name is None and not body.dictionaries:
            raise InvalidRequestError("Give a `name` or `dictionaries` to change.")
        dictionaries = distinct_pairs([d.parsed() for d in body.dictionaries or ()])
        await self.store.update(key, glossary_id, body.name, dictionaries)
        return await self.store.describe(key, glossary_id)

    async def replace_dictionary(
        self, key: str, glossary_id: str, body: DictionaryBody
    ) -> DictionaryInfo:
        source, target, entries = body.parsed()
        return await self.store.replace(key, glossary_id, source, target, entries)

    async def delete_dictionary(
        self, key: str, glossary_id: str, source_lang: str | None, target_lang: str | None
    ) -> None:
        await self.store.delete_dictionary(
            key, glossary_id, *language_pair(source_lang, target_lang)
        )

    async def dictionary_entries(
        self, key: str, glossary_id: str, source_lang: str | None, target_lang: str | None
    ) -> DictionaryEntriesList:
        source, target = language_pair(source_lang, target_lang)
        entries = await self.store.dictionary(key, glossary_id, source, target)
        return DictionaryEntriesList(
            dictionaries=[
                DictionaryEntries(
                    source_lang=source, target_lang=target, entries=entries_tsv(entries)
                )
            ]
        )
