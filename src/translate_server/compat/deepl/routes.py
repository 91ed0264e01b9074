"""DeepL API v2: the official `deepl` clients work against this server by changing their
server URL. Keys, when set, come as `Authorization: DeepL-Auth-Key <key>` or, as DeepL's
legacy clients send them, in an `auth_key` field or query parameter."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request, Router, get, post, route
from litestar.openapi.datastructures import ResponseSpec
from litestar.response import Response

from translate_server.compat.common import (
    body_key_check,
    compat_status,
    presented_key,
    query_or_form,
)
from translate_server.compat.deepl.accounts import UNLIMITED
from translate_server.compat.deepl.glossaries import (
    Glossary,
    base_language,
    entries_tsv,
    parse_entries,
)
from translate_server.compat.deepl.glossary_routes import GLOSSARY_V3_ROUTES
from translate_server.compat.deepl.protocol import (
    DeepLError,
    DeepLLanguage,
    DeepLTranslateRequest,
    DeepLTranslateResponse,
    DeepLUsage,
    GlossaryCreate,
    GlossaryLanguagePair,
    GlossaryLanguagePairs,
    GlossaryList,
    deepl_languages,
)
from translate_server.compat.deepl.style_routes import STYLE_RULE_ROUTES
from translate_server.compat.deepl.styling import requested_instructions
from translate_server.compat.deepl.write import DeepLWrite, Task, WriteRequest, WriteResponse
from translate_server.errors import ApiError, InvalidRequestError
from translate_server.http.bodies import read_body
from translate_server.http.errors import exception_handlers
from translate_server.http.openapi import COMPAT_ERRORS, error_responses
from translate_server.http.requests import deadline_for, record_of, unless_disconnected
from translate_server.http.route_paths import compatible
from translate_server.memory.routes import memory_owner
from translate_server.observability.record import RequestRecord
from translate_server.services import Services, services
from translate_server.text.detection import detectable_languages
from translate_server.translation.protocol import TranslateRequest, TranslateResponse
from translate_server.wire import ErrorBody

_ERRORS = error_responses(*COMPAT_ERRORS, shape=DeepLError)
KEY_FIELD = "auth_key"


@post(
    "/translate",
    status_code=200,
    summary="DeepL v2: translate texts",
    tags=["deepl"],
    responses=_ERRORS,
)
async def deepl_translate(request: Request[Any, Any, Any]) -> DeepLTranslateResponse:
    body = await read_body(
        request,
        DeepLTranslateRequest,
        lists=(
            "text",
            "ignore_tags",
            "non_splitting_tags",
            "splitting_tags",
            "custom_instructions",
            "glossary_ids",
        ),
    )
    found = services(request)
    key = await presented_key(request, KEY_FIELD)
    glossary = await found.deepl.glossaries.entries_of_all(
        key, body.glossary_id, body.glossary_ids, body.source_lang, body.target_lang
    )
    instructions = await requested_instructions(body, key, found.deepl, found.translation)
    translate_request = body.to_translate_request(glossary, instructions)
    deadline = deadline_for(found.limits.request_timeout, None)
    kept: dict[int, str] = {}
    owner = memory_owner(request) if translate_request.memory is not None else ""
    response = await unless_disconnected(
        request,
        _translate_detectable(found, translate_request, kept, record_of(request), deadline, owner),
    )
    await found.deepl.bill(key, sum(len(text) for text in body.text))
    return DeepLTranslateResponse.of(body, response, kept)


async def _translate_detectable(
    found: Services,
    request: TranslateRequest,
    kept: dict[int, str],
    record: RequestRecord,
    deadline: float,
    owner: str = "",
) -> TranslateResponse:
    """As DeepL does, a batch in which some texts' language cannot be detected translates the
    others; those come back as they are, in `kept` (index -> the target language)."""
    texts = list(request.text) if isinstance(request.text, list) else [request.text]
    remaining = list(range(len(texts)))
    while True:
        try:
            batch = msgspec.structs.replace(request, text=[texts[i] for i in remaining])
            return await found.translation.translate(batch, record, deadline, owner=owner)
        except InvalidRequestError as exc:
            index = _undetected_index(exc)
            if index is None or len(remaining) == 1:
                raise
            kept[remaining.pop(index)] = request.target_lang.split("-")[0]


def _undetected_index(exc: ApiError) -> int | None:
    if exc.code != "language_not_detected" or not (exc.param or "").startswith("text["):
        return None
    return int((exc.param or "")[5:-1])


@post(
    "/write/rephrase",
    status_code=200,
    summary="DeepL Write: improve texts (`writing_style` or `tone`); instruction-tuned models",
    tags=["deepl"],
    responses=_ERRORS,
)
async def write_rephrase(request: Request[Any, Any, Any]) -> WriteResponse:
    return await _write(request, "rephrase")


@post(
    "/write/correct",
    status_code=200,
    summary="DeepL Write: correct spelling and grammar only; instruction-tuned models",
    tags=["deepl"],
    responses=_ERRORS,
)
async def write_correct(request: Request[Any, Any, Any]) -> WriteResponse:
    return await _write(request, "correct")


async def _write(request: Request[Any, Any, Any], task: Task) -> WriteResponse:
    body = await read_body(request, WriteRequest, lists=("text",))
    found = services(request)
    key = await presented_key(request, KEY_FIELD)
    deadline = deadline_for(found.limits.request_timeout, None)
    response = await unless_disconnected(
        request, DeepLWrite(found.translation).improve(body, task, record_of(request), deadline)
    )
    await found.deepl.bill(key, sum(len(text) for text in body.text))
    return response


@get(
    "/languages", summary="DeepL v2: source or target languages", tags=["deepl"], responses=_ERRORS
)
async def deepl_list_languages(request: Request[Any, Any, Any]) -> list[DeepLLanguage]:
    kind = await query_or_form(request, "type") or "source"
    return deepl_languages(
        list(detectable_languages()), kind.lower(), services(request).translation.planner.support
    )


@route(
    "/usage",
    http_method=["GET", "POST"],
    status_code=200,
    summary="DeepL v2: characters translated",
    tags=["deepl"],
    responses=_ERRORS,
)
async def deepl_usage(request: Request[Any, Any, Any]) -> DeepLUsage:
    """Characters billed to the key by its texts and, once translated, its documents,
    counted across restarts (in the DeepL database); no limit applies."""
    key = await presented_key(request, KEY_FIELD)
    return DeepLUsage(
        character_count=await services(request).deepl.characters(key), character_limit=UNLIMITED
    )


# One handler per path: Litestar's OPTIONS answer (`Allow`) names only one handler's methods
# where a path has several.
@route(
    "/glossaries",
    http_method=["GET", "POST"],
    status_code=200,
    summary="DeepL v2: list glossaries (GET) or create one (POST, 201)",
    tags=["deepl"],
    responses={
        201: ResponseSpec(
            data_container=Glossary, generate_examples=False, description="The glossary created"
        ),
        **_ERRORS,
    },
)
async def glossaries(request: Request[Any, Any, Any]) -> Response[GlossaryList | Glossary]:
    key = await presented_key(request, KEY_FIELD)
    store = services(request).deepl.glossaries
    if request.method == "GET":
        return Response(GlossaryList(glossaries=await store.list(key)))
    body = await read_body(request, GlossaryCreate)
    entries = parse_entries(body.entries, body.entries_format.lower())
    source = base_language(body.source_lang, "source_lang")
    target = base_language(body.target_lang, "target_lang")
    created = await store.create_v2(key, body.name, source, target, entries)
    return Response(created, status_code=201)


@route(
    "/glossaries/{glossary_id:str}",
    http_method=["GET", "DELETE"],
    status_code=200,
    summary="DeepL v2: describe a glossary (GET) or delete it (DELETE, 204)",
    tags=["deepl"],
    responses={204: ResponseSpec(data_container=None, description="Deleted"), **_ERRORS},
)
async def glossary(glossary_id: str, request: Request[Any, Any, Any]) -> Response[Glossary | None]:
    key = await presented_key(request, KEY_FIELD)
    store = services(request).deepl.glossaries
    if request.method == "GET":
        return Response((await store.get(key, glossary_id)).info)
    await store.delete(key, glossary_id)
    return Response(None, status_code=204)


@get(
    "/glossaries/{glossary_id:str}/entries",
    summary="DeepL v2: a glossary's entries (TSV)",
    tags=["deepl"],
    responses=_ERRORS,
    media_type="text/tab-separated-values",
)
async def glossary_entries(glossary_id: str, request: Request[Any, Any, Any]) -> Response[str]:
    key = await presented_key(request, KEY_FIELD)
    stored = await services(request).deepl.glossaries.get(key, glossary_id)
    return Response(entries_tsv(stored.entries), media_type="text/tab-separated-values")


@get(
    "/glossary-language-pairs",
    summary="DeepL v2: language pairs glossaries support",
    tags=["deepl"],
    responses=_ERRORS,
)
async def glossary_language_pairs(request: Request[Any, Any, Any]) -> GlossaryLanguagePairs:
    tags = [language.code for language in services(request).translation.languages().languages]
    return GlossaryLanguagePairs(
        supported_languages=[
            GlossaryLanguagePair(source_lang=source, target_lang=target)
            for source in tags
            for target in tags
            if source != target
        ]
    )


@route(
    "/{unknown:path}",
    http_method=["GET", "POST", "PUT", "PATCH", "DELETE"],
    include_in_schema=False,
)
async def deepl_unknown(unknown: str, request: Request[Any, Any, Any]) -> None:
    """Any other `/v2/...` or `/v3/...` path (but Google's `/v3/projects/...`): a 404 in
    DeepL's shape, which its clients can read."""
    raise NotFoundError(f"Not found: {request.url.path}")


class NotFoundError(ApiError):
    status_code = 404
    code = "not_found"


def error_shape(status: int, error: ErrorBody) -> tuple[int, DeepLError]:
    return compat_status(status, error), DeepLError(message=error.message)


def deepl_router() -> Router:
    return Router(
        path="/v2",
        route_handlers=[
            deepl_translate,
            write_rephrase,
            write_correct,
            deepl_list_languages,
            deepl_usage,
            glossaries,
            glossary,
            glossary_entries,
            glossary_language_pairs,
            deepl_unknown,
        ],
        exception_handlers=exception_handlers(error_shape),
        before_request=body_key_check(KEY_FIELD),
        opt=compatible(error_shape),
    )


def deepl_v3_router() -> Router:
    return Router(
        path="/v3",
        route_handlers=[*STYLE_RULE_ROUTES, *GLOSSARY_V3_ROUTES, deepl_unknown],
        exception_handlers=exception_handlers(error_shape),
        before_request=body_key_check(KEY_FIELD),
        opt=compatible(error_shape),
    )
