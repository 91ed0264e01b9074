"""DeepL API v2: the official `deepl` clients work against this server by changing their
server URL. Keys, when set, come as `Authorization: DeepL-Auth-Key <key>` or, as DeepL's
legacy clients send them, in an `auth_key` field or query parameter."""

from __future__ import annotations

from typing import Any

from litestar import Request, Router, get, post, route
from litestar.openapi.datastructures import ResponseSpec
from litestar.response import Response

from translate_server.accounts import scopes
from translate_server.compat.common import (
    body_key_check,
    compat_status,
    presented_key,
    query_or_form,
)
from translate_server.compat.deepl.glossaries import Glossary
from translate_server.compat.deepl.glossary_routes import GLOSSARY_V3_ROUTES
from translate_server.compat.deepl.keys import DEEPL
from translate_server.compat.deepl.languages_v3 import LanguageResource, V3Language
from translate_server.compat.deepl.protocol import (
    DeepLError,
    DeepLLanguage,
    DeepLTranslateRequest,
    DeepLTranslateResponse,
    DeepLUsage,
    GlossaryCreate,
    GlossaryLanguagePairs,
    GlossaryList,
    NotFoundError,
)
from translate_server.compat.deepl.style_routes import STYLE_RULE_ROUTES
from translate_server.compat.deepl.write import Task, WriteRequest, WriteResponse
from translate_server.http.bodies import read_body
from translate_server.http.errors import QUOTA_EXCEEDED, exception_handlers, limit_status
from translate_server.http.openapi import COMPAT_ERRORS, error_responses, idempotent
from translate_server.http.requests import deadline_for, record_of, unless_disconnected
from translate_server.http.route_paths import IDEMPOTENT, compatible, scoped
from translate_server.services import services
from translate_server.wire import ErrorBody

_ERRORS = error_responses(*COMPAT_ERRORS, shape=DeepLError)
KEY_FIELD = "auth_key"


@post(
    "/translate",
    status_code=200,
    summary="DeepL v2: translate texts",
    tags=["deepl"],
    opt={IDEMPOTENT: True},
    operation_class=idempotent(),
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
    key = await presented_key(request, KEY_FIELD)
    deadline = deadline_for(services(request).limits.request_timeout, None)
    return await unless_disconnected(
        request, services(request)[DEEPL].translate(body, key, record_of(request), deadline)
    )


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
    key = await presented_key(request, KEY_FIELD)
    deadline = deadline_for(services(request).limits.request_timeout, None)
    return await unless_disconnected(
        request, services(request)[DEEPL].write(body, task, key, record_of(request), deadline)
    )


@get(
    "/languages", summary="DeepL v2: source or target languages", tags=["deepl"], responses=_ERRORS
)
async def deepl_list_languages(request: Request[Any, Any, Any]) -> list[DeepLLanguage]:
    kind = await query_or_form(request, "type") or "source"
    return services(request)[DEEPL].languages(kind)


@get(
    "/languages",
    summary="DeepL v3: languages of a resource",
    description="The languages `resource` (required: `translate_text`, `translate_document`, "
    "`glossary`, `voice`, `write`, `style_rules`, `translation_memory`) serves here, each "
    "usable as a source, a target or both, with its features (DeepL's `features` object); "
    "none for a resource not served. `include` (`beta`, `external`) is accepted: every "
    "language here is `stable`.",
    tags=["deepl"],
    responses=_ERRORS,
)
async def deepl_languages_v3(request: Request[Any, Any, Any]) -> list[V3Language]:
    resource = request.query_params.get("resource")
    include = request.query_params.getall("include", [])
    return services(request)[DEEPL].languages_v3(resource, include)


@get(
    "/languages/resources",
    summary="DeepL v3: the resources served and their language features",
    tags=["deepl"],
    responses=_ERRORS,
)
async def deepl_language_resources(request: Request[Any, Any, Any]) -> list[LanguageResource]:
    return services(request)[DEEPL].language_resources()


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
    counted across restarts (in the DeepL database); with a monthly quota, this month's
    count and its limit."""
    key = await presented_key(request, KEY_FIELD)
    return await services(request)[DEEPL].usage(key)


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
    operations = services(request)[DEEPL].glossaries
    if request.method == "GET":
        return Response(await operations.list_v2(key))
    body = await read_body(request, GlossaryCreate)
    return Response(await operations.create_v2(key, body), status_code=201)


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
    operations = services(request)[DEEPL].glossaries
    if request.method == "GET":
        return Response(await operations.describe_v2(key, glossary_id))
    await operations.delete(key, glossary_id)
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
    entries = await services(request)[DEEPL].glossaries.entries_v2(key, glossary_id)
    return Response(entries, media_type="text/tab-separated-values")


@get(
    "/glossary-language-pairs",
    summary="DeepL v2: language pairs glossaries support",
    tags=["deepl"],
    responses=_ERRORS,
)
async def glossary_language_pairs(request: Request[Any, Any, Any]) -> GlossaryLanguagePairs:
    return services(request)[DEEPL].glossary_language_pairs()


@route(
    "/{unknown:path}",
    http_method=["GET", "POST", "PUT", "PATCH", "DELETE"],
    include_in_schema=False,
)
async def deepl_unknown(unknown: str, request: Request[Any, Any, Any]) -> None:
    """Any other `/v2/...` or `/v3/...` path (but Google's `/v3/projects/...`): a 404 in
    DeepL's shape, which its clients can read."""
    raise NotFoundError(f"Not found: {request.url.path}")


def error_shape(status: int, error: ErrorBody) -> tuple[int, DeepLError]:
    if error.code == QUOTA_EXCEEDED:  # DeepL's own words for its 456
        return limit_status("deepl", status, error), DeepLError(message="Quota exceeded")
    return compat_status(status, error), DeepLError(message=error.message)


def deepl_router() -> Router:
    return Router(
        path="/v2",
        route_handlers=[
            deepl_translate,
            write_rephrase,
            write_correct,
            deepl_list_languages,
            Router("/", route_handlers=[deepl_usage], opt=scoped(scopes.USAGE_READ)),
            Router(
                "/",
                route_handlers=[glossaries, glossary, glossary_entries, glossary_language_pairs],
                opt=scoped(scopes.GLOSSARIES_READ, scopes.GLOSSARIES_WRITE),
            ),
            deepl_unknown,
        ],
        exception_handlers=exception_handlers(error_shape),
        before_request=body_key_check(KEY_FIELD),
        opt=compatible(error_shape, scope=scopes.TRANSLATE, stores=True),
    )


def deepl_v3_router() -> Router:
    return Router(
        path="/v3",
        route_handlers=[
            # DeepL's style rules are its glossaries' kind of stored terminology.
            Router(
                "/",
                route_handlers=[*STYLE_RULE_ROUTES, *GLOSSARY_V3_ROUTES],
                opt=scoped(scopes.GLOSSARIES_READ, scopes.GLOSSARIES_WRITE),
            ),
            deepl_languages_v3,
            deepl_language_resources,
            deepl_unknown,
        ],
        exception_handlers=exception_handlers(error_shape),
        before_request=body_key_check(KEY_FIELD),
        opt=compatible(error_shape, scope=scopes.TRANSLATE, stores=True),
    )
