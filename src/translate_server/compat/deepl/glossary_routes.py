"""DeepL API v3 glossaries (`/v3/glossaries`), as DeepL's client calls them: a glossary of
dictionaries, one per language pair, renamed or merged into (PATCH), a dictionary replaced
(PUT) or deleted; the same glossaries as v2's and ours (glossaries/store.py)."""

from __future__ import annotations

from typing import Any

from litestar import Request, get, route
from litestar.openapi.datastructures import ResponseSpec
from litestar.response import Response

from translate_server.compat.common import presented_key
from translate_server.compat.deepl.glossaries import (
    DictionaryBody,
    DictionaryEntriesList,
    MultilingualGlossary,
    MultilingualGlossaryCreate,
    MultilingualGlossaryList,
    MultilingualGlossaryPatch,
)
from translate_server.compat.deepl.glossary_service import DeepLGlossaries
from translate_server.compat.deepl.keys import DEEPL
from translate_server.compat.deepl.protocol import DeepLError
from translate_server.glossaries.model import DictionaryInfo
from translate_server.http.bodies import read_body
from translate_server.http.openapi import COMPAT_ERRORS, error_responses
from translate_server.services import services

KEY_FIELD = "auth_key"
_ERRORS = error_responses(*COMPAT_ERRORS, shape=DeepLError)
_GLOSSARY = "/glossaries/{glossary_id:str}"


async def _glossaries(request: Request[Any, Any, Any]) -> tuple[str, DeepLGlossaries]:
    return await presented_key(request, KEY_FIELD), services(request)[DEEPL].glossaries


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
    key, glossaries = await _glossaries(request)
    if request.method == "GET":
        return Response(await glossaries.list_v3(key))
    body = await read_body(request, MultilingualGlossaryCreate)
    return Response(await glossaries.create_v3(key, body), status_code=201)


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
    key, glossaries = await _glossaries(request)
    if request.method == "DELETE":
        await glossaries.delete(key, glossary_id)
        return Response(None, status_code=204)
    if request.method == "PATCH":
        body = await read_body(request, MultilingualGlossaryPatch)
        return Response(await glossaries.change_v3(key, glossary_id, body))
    return Response(await glossaries.describe_v3(key, glossary_id))


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
    key, glossaries = await _glossaries(request)
    if request.method == "DELETE":
        source, target = _pair(request)
        await glossaries.delete_dictionary(key, glossary_id, source, target)
        return Response(None, status_code=204)
    body = await read_body(request, DictionaryBody)
    return Response(await glossaries.replace_dictionary(key, glossary_id, body))


@get(
    _GLOSSARY + "/entries",
    summary="DeepL v3: the entries (TSV) of a glossary's dictionary for `source_lang` and "
    "`target_lang`",
    tags=["deepl"],
    responses=_ERRORS,
)
async def entries_v3(glossary_id: str, request: Request[Any, Any, Any]) -> DictionaryEntriesList:
    key, glossaries = await _glossaries(request)
    return await glossaries.dictionary_entries(key, glossary_id, *_pair(request))


def _pair(request: Request[Any, Any, Any]) -> tuple[str | None, str | None]:
    """The `source_lang` and `target_lang` of the query, as sent."""
    return request.query_params.get("source_lang"), request.query_params.get("target_lang")


GLOSSARY_V3_ROUTES = [glossaries_v3, glossary_v3, dictionaries_v3, entries_v3]
