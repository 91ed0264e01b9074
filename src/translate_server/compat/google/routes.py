"""Google Cloud Translation's REST API: Google's client libraries and plugins work against this
server by changing their API endpoint.

- The basic edition (v2), under `/language/translate/v2`: parameters in the query, a form or a
  JSON body, on GET or POST alike.
- The advanced edition's (v3) text methods, under `/v3/projects/`: `translateText` (with a
  stored glossary as `glossaryConfig`), `adaptiveMtTranslate` (a translation memory as its
  dataset) and `detectLanguage` on a project or a project's location (`projects/p/locations/
  global:translateText`), and `supportedLanguages`; every other method is refused in Google's
  envelope, named; beside DeepL's own `/v3` routes (DeepL has no
  `projects`). Google's custom methods end a path segment, which a route cannot split: the
  method is read from the segment.

Keys come as Google's clients send them: `X-Goog-Api-Key` (the client libraries' API-key
credentials), a `key` query parameter (everyone else), or a bearer token, which the gate
checks itself."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, Router, get, post, route
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import Parameter

from translate_server.accounts import scopes
from translate_server.compat.common import presented_key
from translate_server.compat.google.envelope import (
    ApiKeyInvalidError,
    ApiKeyMissingError,
    google_error,
)
from translate_server.compat.google.keys import GOOGLE, GOOGLE_ADAPTIVE
from translate_server.compat.google.protocol import (
    REPEATED,
    GoogleAdaptiveMtRequest,
    GoogleAdaptiveMtResponse,
    GoogleDetectParams,
    GoogleDetectResponse,
    GoogleError,
    GoogleLanguagesParams,
    GoogleLanguagesResponse,
    GoogleTranslateParams,
    GoogleTranslateResponse,
    GoogleV3DetectRequest,
    GoogleV3DetectResponse,
    GoogleV3Languages,
    GoogleV3TranslateRequest,
    GoogleV3TranslateResponse,
)
from translate_server.errors import ApiError
from translate_server.http.bodies import read_body, read_params
from translate_server.http.errors import exception_handlers, limit_status
from translate_server.http.gate import KEY_IN_BODY, accept_presented
from translate_server.http.requests import (
    deadline_for,
    record_of,
    request_owner,
    unless_disconnected,
)
from translate_server.http.route_paths import STORES, compatible
from translate_server.http.scopes import require_scope
from translate_server.services import services
from translate_server.wire import ErrorBody

V2_PREFIX = "/language/translate/v2"
V3_PREFIX = "/v3/projects"
KEY_FIELD = "key"
KEY_HEADER = "x-goog-api-key"

ERRORS = {
    status: ResponseSpec(data_container=GoogleError, generate_examples=False, description=text)
    for status, text in {
        400: "Invalid request (v2's `errors[].location` names the parameter), or an API key "
        "that is not one of the server's (`API_KEY_INVALID`)",
        401: "An `Authorization` bearer token that is not one of the server's keys",
        403: "No API key, where the server has keys",
        404: "Unknown model, memory (adaptive MT's `dataset`) or glossary",
        413: "Request body too large",
        501: "A method of Google's API not served here (`UNIMPLEMENTED`), named",
        502: "The engine stopped while generating this request",
        503: "Overloaded (with Retry-After), shutting down, or the engine is not running",
        504: "The request missed its deadline and was aborted",
    }.items()
}
_GET_OR_POST: list[Any] = ["GET", "POST"]


class NotFoundError(ApiError):
    status_code = 404
    code = "not_found"


class UnservedMethodError(ApiError):
    """A method of Google's API this server does not serve: Google's `UNIMPLEMENTED`."""

    status_code = 501
    type = "not_implemented"
    code = "method_not_served"


# -- v2 ------------------------------------------------------------------------------------


@route(
    "/",
    http_method=_GET_OR_POST,
    status_code=200,
    summary="Google v2: translate (`q` repeated, `target`, `source`, `format`, `model`)",
    tags=["google"],
    responses=ERRORS,
)
async def google_translate(request: Request[Any, Any, Any]) -> GoogleTranslateResponse:
    params = await read_params(request, GoogleTranslateParams, REPEATED)
    found = services(request)
    deadline = deadline_for(found.limits.request_timeout, None)
    return await unless_disconnected(
        request,
        found[GOOGLE].translate_v2(params, record_of(request), deadline),
    )


@route(
    "/detect",
    http_method=_GET_OR_POST,
    status_code=200,
    summary="Google v2: detect the language of each `q`",
    tags=["google"],
    responses=ERRORS,
)
async def google_detect(request: Request[Any, Any, Any]) -> GoogleDetectResponse:
    params = await read_params(request, GoogleDetectParams, REPEATED)
    return await services(request)[GOOGLE].detect_v2(params)


@route(
    "/languages",
    http_method=_GET_OR_POST,
    status_code=200,
    summary="Google v2: languages, named in `target` where it is given",
    tags=["google"],
    responses=ERRORS,
)
async def google_languages(request: Request[Any, Any, Any]) -> GoogleLanguagesResponse:
    params = await read_params(request, GoogleLanguagesParams)
    return services(request)[GOOGLE].languages_v2(params)


@route(
    "/{unknown:path}",
    http_method=["GET", "POST", "PUT", "PATCH", "DELETE"],
    include_in_schema=False,
)
async def google_unknown(unknown: str, request: Request[Any, Any, Any]) -> None:
    """Any other path of the v2 API: a 404 in Google's shape."""
    raise NotFoundError(f"Not found: {request.url.path}")


# -- v3 ------------------------------------------------------------------------------------

V3_METHODS = ("translateText", "adaptiveMtTranslate", "detectLanguage", "supportedLanguages")
# The body's fields that name a store: a stored glossary, a translation memory.
NAMING_STORES = ("glossaryConfig", "dataset")
V3Answer = GoogleV3TranslateResponse | GoogleV3DetectResponse | GoogleAdaptiveMtResponse
DisplayLanguage = Annotated[
    str | None,
    Parameter(query="displayLanguageCode", description="The language of the languages' names."),
]


@post(
    "/{parent:str}",
    status_code=200,
    summary="Google v3: `projects/{project}:translateText`, `:adaptiveMtTranslate` or "
    "`:detectLanguage`",
    tags=["google"],
    responses=ERRORS,
    opt={STORES: NAMING_STORES},
)
async def project_method(parent: str, request: Request[Any, Any, Any]) -> V3Answer:
    return await _v3_call(request, parent)


@post(
    "/{project:str}/locations/{location:str}",
    status_code=200,
    summary="Google v3: `projects/{project}/locations/{location}:translateText`, "
    "`:adaptiveMtTranslate` (a `dataset` named `.../adaptiveMtDatasets/{memory id}`) or "
    "`:detectLanguage`",
    tags=["google"],
    responses=ERRORS,
    opt={STORES: NAMING_STORES},
)
async def location_method(project: str, location: str, request: Request[Any, Any, Any]) -> V3Answer:
    return await _v3_call(request, location)


async def _v3_call(request: Request[Any, Any, Any], segment: str) -> V3Answer:
    _, _, method = segment.rpartition(":")
    found = services(request)
    deadline = deadline_for(found.limits.request_timeout, None)
    if method == "translateText":
        body = await read_body(request, GoogleV3TranslateRequest)
        owner = request_owner(request) if body.glossaryConfig else ""
        return await unless_disconnected(
            request, found[GOOGLE].translate_v3(body, record_of(request), deadline, owner)
        )
    if method == "adaptiveMtTranslate":
        adaptive = await read_body(request, GoogleAdaptiveMtRequest)
        return await unless_disconnected(
            request,
            found[GOOGLE_ADAPTIVE].translate(
                adaptive, record_of(request), deadline, request_owner(request)
            ),
        )
    if method == "detectLanguage":
        return found[GOOGLE].detect_v3(await read_body(request, GoogleV3DetectRequest))
    raise unserved(request.method, segment)


@route(
    "/{project:str}/locations/{location:str}/{rest:path}",
    http_method=["GET", "POST", "PUT", "PATCH", "DELETE"],
    include_in_schema=False,
)
async def v3_unknown(
    project: str, location: str, rest: str, request: Request[Any, Any, Any]
) -> None:
    """Any other method on a location (glossaries, datasets, models, operations): refused in
    Google's shape, naming the method."""
    raise unserved(request.method, f"locations/{location}{rest}")


# Google's REST verbs on a collection (`.../glossaries`) or one of its items.
# Google's v3 API as it is: its custom methods and its collections. A method of it not served
# is Google's 501 `UNIMPLEMENTED`; a name that is none of them, a 404 (it is no method at all).
_GOOGLE_METHODS = frozenset(
    (
        "translateText",
        "detectLanguage",
        "supportedLanguages",
        "translateDocument",
        "batchTranslateText",
        "batchTranslateDocument",
        "romanizeText",
        "adaptiveMtTranslate",
        "importAdaptiveMtFile",
        "importData",
        "exportData",
        "cancel",
        "wait",
    )
)
_GOOGLE_COLLECTIONS = frozenset(
    (
        "locations",
        "glossaries",
        "glossaryEntries",
        "adaptiveMtDatasets",
        "adaptiveMtFiles",
        "adaptiveMtSentences",
        "datasets",
        "examples",
        "models",
        "operations",
    )
)
_VERBS = {("GET", True): "List", ("POST", True): "Create", ("GET", False): "Get"}
_VERBS |= {("DELETE", False): "Delete", ("PATCH", False): "Update"}


def unserved(verb: str, path: str) -> ApiError:
    """The refusal of a method not served, named as Google's API names it:
    `translateDocument`, `ListGlossaries`, `GetAdaptiveMtDataset`; a 404 for a name that is
    no method of Google's API."""
    path = path.strip("/")
    _, colon, custom = path.rpartition(":")
    if colon and "/" not in custom:
        method, known = custom, custom in _GOOGLE_METHODS
    else:
        segments = path.split("/")
        # Collections sit at odd depths under the project (`locations/l/glossaries/g`).
        on_collection = len(segments) % 2 == 1
        collection = segments[-1] if on_collection else segments[-2] if len(segments) > 1 else ""
        noun = collection[:1].upper() + collection[1:]
        if not on_collection and noun.endswith("ies"):
            noun = noun[:-3] + "y"
        elif not on_collection and noun.endswith("s"):
            noun = noun[:-1]
        method = _VERBS.get((verb, on_collection), verb.title()) + noun
        known = collection in _GOOGLE_COLLECTIONS
    if not known:
        return NotFoundError(f"No method of Google's API is `{method}`.")
    return UnservedMethodError(
        f"The method `{method}` is not served here: this server serves {', '.join(V3_METHODS)}.",
    )


@get(
    "/{project:str}/supportedLanguages",
    summary="Google v3: languages, named in `displayLanguageCode` where it is given",
    tags=["google"],
    responses=ERRORS,
)
async def supported_languages(
    project: str, request: Request[Any, Any, Any], display: DisplayLanguage = None
) -> GoogleV3Languages:
    return services(request)[GOOGLE].languages_v3(display)


# Its own handler, not a second path of the one above: a handler's path parameters are then
# the ones it names, in its path's order, so the OpenAPI document is the same on every run.
@get(
    "/{project:str}/locations/{location:str}/supportedLanguages",
    summary="Google v3: languages, named in `displayLanguageCode` where it is given",
    tags=["google"],
    responses=ERRORS,
)
async def location_supported_languages(
    project: str, location: str, request: Request[Any, Any, Any], display: DisplayLanguage = None
) -> GoogleV3Languages:
    return services(request)[GOOGLE].languages_v3(display)


# -- both ----------------------------------------------------------------------------------


async def check_key(request: Request[Any, Any, Any]) -> None:
    """A Router `before_request` hook: where the gate left the check to the route (no
    `Authorization` header came), the key must be one of the server's."""
    keys = request.scope.get("state", {}).get(KEY_IN_BODY)
    if keys is None:
        return
    key = request.headers.get(KEY_HEADER) or await presented_key(request, KEY_FIELD)
    if not key:
        raise ApiKeyMissingError(
            "The request is missing a valid API key: send it as `key` or `X-Goog-Api-Key`."
        )
    caller = keys.caller(key.encode("utf-8"))
    if caller is None:
        raise ApiKeyInvalidError("API key not valid. Please pass a valid API key.")
    await accept_presented(request.scope, key, caller)
    require_scope(request.scope)


def v2_error(status: int, error: ErrorBody) -> tuple[int, GoogleError]:
    return google_error(limit_status("google", status, error), error, "v2")


def v3_error(status: int, error: ErrorBody) -> tuple[int, GoogleError]:
    return google_error(limit_status("google", status, error), error, "v3")


def google_routers() -> list[Router]:
    """Both editions, each with its error envelope; the browsers' extensions call them too."""
    return [
        Router(
            path=V2_PREFIX,
            route_handlers=[google_translate, google_detect, google_languages, google_unknown],
            exception_handlers=exception_handlers(v2_error),
            before_request=check_key,
            opt=compatible(v2_error, scope=scopes.TRANSLATE, cors=True),
        ),
        Router(
            path=V3_PREFIX,
            route_handlers=[
                project_method,
                location_method,
                supported_languages,
                location_supported_languages,
                v3_unknown,
            ],
            exception_handlers=exception_handlers(v3_error),
            before_request=check_key,
            opt=compatible(v3_error, scope=scopes.TRANSLATE, cors=True, prefix=V3_PREFIX + "/"),
        ),
    ]
