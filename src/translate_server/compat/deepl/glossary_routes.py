"""DeepL API v3 glossaries (`/v3/glossaries`), as DeepL's client calls them: a glossary of
dictionaries, one per language pair, renamed or merged into (PATCH), a dictionary replaced
(PUT) or deleted; the same glossaries as v2's (glossary_store.py)."""

from __future__ import annotations

from typing import Any

from litestar import Request, get, route
from litestar.openapi.datastructures import ResponseSpec
from litestar.response import Response

from translate_server.compat.common import presented_key
from translate_server.compat.deepl.glossaries import (
    DictionaryBody,
    DictionaryEntries,
    DictionaryEntriesList,
    DictionaryInfo,
    MultilingualGlossary,
    MultilingualGlossaryCreate,
    MultilingualGlossaryList,
    MultilingualGlossaryPatch,
    base_language,
    distinct_pairs,
    entries_tsv,
)
from translate_server.compat.deepl.glossary_store import GlossaryStore
from translate_server.compat.deepl.keys import DEEPL_ACCOUNTS
from translate_server.compat.deepl.protocol import DeepLError
from translate_server.errors import InvalidRequestError
from translate_server.http.bodies import read_body
from translate_server.http.openapi import COMPAT_ERRORS, error_responses
from translate_server.services import services

KEY_FIELD = "auth_key"
_ERRORS = error_responses(*COMPAT_ERRORS, shape=DeepLError)
_GLOSSARY = "/glossaries/{glossary_id:str}"


async def _store(request: Request[Any, Any, Any]) -> tuple[str, GlossaryStore]:
    return await presented_key(request, KEY_FIELD), services(request)[DEEPL_ACCOUNTS].glossaries


def _pair(request: Request[Any, Any, Any]) -> tuple[str, str]:
    """The `source_lang` and `target_lang` of the query, as base languages."""
    found = []
    for param in ("source_lang", "target_lang"):
        value = request.query_params.get(param)
        if not value:
            raise InvalidRequestError(f"Give `{param}`.", param=param)
        found.append(base_language(value, param))
    return found[0], found[1]


@route(
    "/glossaries",
    http_method=["GET", "POST"],
    status_code=200,
    summary="DeepL v3: list glossaries (GET) or create one of dictionaries (POST, 201)",
    tags=["deepl"],
    responses={
        201: ResponseSpec(
            data_container=MultilingualGlossary,
            generate_examples=False,
            description="The glossary created",
        ),
        **_ERRORS,
    },
)
async def glossaries_v3(
    request: Request[Any, Any, Any],
) -> Response[MultilingualGlossaryList | MultilingualGlossary]:
    key, store = await _store(request)
    if request.method == "GET":
        return Response(MultilingualGlossaryList(glossaries=await store.list_v3(key)))
    body = await read_body(request, MultilingualGlossaryCreate)
    dictionaries = distinct_pairs([d.parsed() for d in body.dictionaries])
    glossary_id = await store.create(key, body.name, dictionaries)
    return Response(await store.describe(key, glossary_id), status_code=201)


@route(
    _GLOSSARY,
    http_method=["GET", "PATCH", "DELETE"],
    status_code=200,
    summary="DeepL v3: a glossary (GET); renamed or its dictionaries merged into (PATCH); "
    "deleted (DELETE, 204)",
    tags=["deepl"],
    responses={204: ResponseSpec(data_container=None, description="Deleted"), **_ERRORS},
)
async def glossary_v3(
    glossary_id: str, request: Request[Any, Any, Any]
) -> Response[MultilingualGlossary | None]:
    key, store = await _store(request)
    if request.method == "DELETE":
        await store.delete(key, glossary_id)
        return Response(None, status_code=204)
    if request.method == "PATCH":
        body = await read_body(request, MultilingualGlossaryPatch)
        if body.name is None and not body.dictionaries:
            raise InvalidRequestError("Give a `name` or `dictionaries` to change.")
        dictionaries = distinct_pairs([d.parsed() for d in body.dictionaries or ()])
        await store.update(key, glossary_id, body.name, dictionaries)
    return Response(await store.describe(key, glossary_id))


@route(
    _GLOSSARY + "/dictionaries",
    http_method=["PUT", "DELETE"],
    status_code=200,
    summary="DeepL v3: replace (or add) the dictionary of a pair (PUT); delete the one of "
    "`source_lang` and `target_lang` (DELETE, 204)",
    tags=["deepl"],
    responses={204: ResponseSpec(data_container=None, description="Deleted"), **_ERRORS},
)
async def dictionaries_v3(
    glossary_id: str, request: Request[Any, Any, Any]
) -> Response[DictionaryInfo | None]:
    key, store = await _store(request)
    if request.method == "DELETE":
        await store.delete_dictionary(key, glossary_id, *_pair(request))
        return Response(None, status_code=204)
    source, target, entries = (await read_body(request, DictionaryBody)).parsed()
    return Response(await store.replace(key, glossary_id, source, target, entries))


@get(
    _GLOSSARY + "/entries",
    summary="DeepL v3: the entries (TSV) of a glossary's dictionary for `source_lang` and "
    "`target_lang`",
    tags=["deepl"],
    responses=_ERRORS,
)
async def entries_v3(glossary_id: str, request: Request[Any, Any, Any]) -> DictionaryEntriesList:
    key, store = await _store(request)
    source, target = _pair(request)
    entries = await store.dictionary(key, glossary_id, source, target)
    return DictionaryEntriesList(
        dictionaries=[
            DictionaryEntries(source_lang=source, target_lang=target, entries=entries_tsv(entries))
        ]
    )


GLOSSARY_V3_ROUTES = [glossaries_v3, glossary_v3, dictionaries_v3, entries_v3]
