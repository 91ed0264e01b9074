"""How routes document themselves in the OpenAPI document: the error answers each can give,
the 200 of a route that may stream, and the form bodies of routes that read them themselves."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from litestar import Router
from litestar.enums import ParamType
from litestar.openapi import OpenAPIConfig
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.openapi.spec import (
    Components,
    OpenAPIFormat,
    OpenAPIMediaType,
    OpenAPIType,
    Operation,
    Parameter,
    RequestBody,
    Schema,
    SecurityScheme,
)
from litestar.static_files import create_static_files_router
from swagger_ui_bundle import swagger_ui_path

from translate_server import __version__
from translate_server.http.route_paths import OPEN
from translate_server.wire import ErrorResponse

DOCS_PATH = "/docs"
# Swagger UI's own files, served from the installed `swagger-ui-bundle-v2` wheel rather than a
# CDN, so that /docs works where the server has no internet access.
DOCS_ASSETS = f"{DOCS_PATH}/assets"

# The two ways the gate accepts a key (http/gate.py), so that /docs can send one. Either
# satisfies a route; where the server has no keys (`--api-key`), neither is needed, which the
# document says with OpenAPI's empty requirement beside them.
SECURITY_SCHEMES = {
    "bearer": SecurityScheme(
        type="http",
        scheme="bearer",
        description="`Authorization: Bearer <key>`: one of the server's `--api-key` keys "
        "(none needed where the server has no keys).",
    ),
    "deepl_auth_key": SecurityScheme(
        type="apiKey",
        name="Authorization",
        security_scheme_in="header",
        description="`Authorization: DeepL-Auth-Key <key>`, as DeepL's clients send it: type "
        "`DeepL-Auth-Key ` and the key. The same keys as `bearer`.",
    ),
}
SECURITY: list[dict[str, list[str]]] = [{name: []} for name in SECURITY_SCHEMES]
# Routes that never need a key (health) say `security=OPEN_SECURITY`: the empty requirement
# alone, "no key" (an empty list would be dropped from the document).
OPEN_SECURITY: list[dict[str, list[str]]] = [{}]


def openapi_config() -> OpenAPIConfig:
    return OpenAPIConfig(
        title="translate-server",
        version=__version__,
        description="A translation API, OpenAI-compatible chat, completions and Responses "
        "APIs, and DeepL-, DeepLX-, LibreTranslate- and Google Cloud Translation-compatible "
        "APIs over one vLLM engine. Where the server has API keys, authorize with one (Bearer "
        "or DeepL-Auth-Key; Google's routes also take `X-Goog-Api-Key` or a `key` parameter, "
        "DeepLX's a `token` parameter).",
        path=DOCS_PATH,
        render_plugins=[
            SwaggerRenderPlugin(
                js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
                css_url=f"{DOCS_ASSETS}/swagger-ui.css",
                standalone_preset_js_url=f"{DOCS_ASSETS}/swagger-ui-standalone-preset.js",
                favicon=f"<link rel='icon' type='image/png' href='{DOCS_ASSETS}/favicon-32x32.png'"
                ">",
            )
        ],
        components=Components(security_schemes=dict(SECURITY_SCHEMES)),
        security=[*SECURITY, {}],
    )


def docs_assets() -> Router:
    """Swagger UI's scripts, style sheet and icon, open without a key as /docs is, and not in
    the OpenAPI document."""
    return create_static_files_router(
        DOCS_ASSETS,
        [Path(str(swagger_ui_path))],
        name="docs/assets",
        opt=OPEN,
        include_in_schema=False,
    )


_ERROR_DESCRIPTIONS = {
    400: "Invalid request: `param` names the offending field",
    401: "Missing or invalid API key",
    403: "Missing or invalid API key (DeepL and LibreTranslate clients expect 403)",
    404: "Unknown model",
    409: "Conflict: the name is taken, or every place is (unload one first)",
    413: "Request body too large",
    415: "Body is not JSON",
    429: "Overloaded: retry later (DeepL and LibreTranslate clients expect 429)",
    502: "The engine stopped while generating this request (not retried by a load balancer)",
    503: "Overloaded (with Retry-After), shutting down, or the engine is not running",
    504: "The request missed its deadline and was aborted",
}


def error_responses(*statuses: int, shape: type = ErrorResponse) -> dict[int, ResponseSpec]:
    """OpenAPI entries for the error answers a route can give: the OpenAI envelope, or the
    `shape` a compatible API's clients expect."""
    return {
        status: ResponseSpec(
            data_container=shape, generate_examples=False, description=_ERROR_DESCRIPTIONS[status]
        )
        for status in statuses
    }


API_ERRORS = (400, 401, 404, 413, 415, 502, 503, 504)


def answer_or_stream(answer: type, description: str) -> dict[int, ResponseSpec]:
    """The 200 of a route that answers JSON, or an event stream when asked to: documented as
    the JSON answer (a handler annotated `Answer | Stream` would be documented as "anything")."""
    return {
        200: ResponseSpec(data_container=answer, generate_examples=False, description=description)
    }


# What the DeepL- and LibreTranslate-compatible routes answer instead: 403 for a bad key and
# 429 when overloaded, as their clients expect.
COMPAT_ERRORS = (400, 403, 404, 413, 429, 502, 503, 504)


# -- bodies a handler reads itself ---------------------------------------------------------
# Upload routes read their multipart form themselves (to bound it as it streams in), so
# Litestar cannot see their body: these describe it.

FILE = "file"  # the one binary field of an upload form


@dataclass(frozen=True)
class FormField:
    name: str
    description: str
    required: bool = False
    enum: tuple[str, ...] = ()


def form_body(
    fields: tuple[FormField, ...],
    media_type: str = "multipart/form-data",
) -> type[Operation]:
    """An operation class whose request body is a form of `fields` (`file` is binary)."""
    schema = Schema(
        type=OpenAPIType.OBJECT,
        required=[field.name for field in fields if field.required] or None,
        properties={
            field.name: Schema(
                type=OpenAPIType.STRING,
                description=field.description,
                format=OpenAPIFormat.BINARY if field.name == FILE else None,
                enum=list(field.enum) or None,
            )
            for field in fields
        },
    )
    body = RequestBody(required=True, content={media_type: OpenAPIMediaType(schema=schema)})

    @dataclass
    class FormOperation(Operation):
        def __post_init__(self) -> None:
            self.request_body = body

    return FormOperation


_IDEMPOTENCY_KEY = Parameter(
    name="Idempotency-Key",
    param_in=ParamType.HEADER,
    required=False,
    schema=Schema(type=OpenAPIType.STRING, min_length=1, max_length=255),
    description="A key of the client's choosing (printable ASCII, at most 255 characters): "
    "the same key and body within 24 hours answers the first request's answer again "
    "(`Idempotent-Replayed: true`), without running or billing it again, on any server; "
    "the same key with another body is a 422 `idempotency_key_reused` (docs/api.md).",
)


_KEY_REUSED = (
    "The `Idempotency-Key` came before with another body or route (`idempotency_key_reused`)"
)


def idempotent(base: type[Operation] = Operation) -> type[Operation]:
    """`base` with the `Idempotency-Key` header (`http.idempotency`) among its parameters."""

    @dataclass
    class IdempotentOperation(base):  # type: ignore[valid-type,misc]
        def __post_init__(self) -> None:
            if hasattr(base, "__post_init__"):
                base.__post_init__(self)
            given: list[Any] = list(getattr(self, "parameters", None) or [])
            self.parameters = [*given, _IDEMPOTENCY_KEY]
            # The key sent again with another body: a 422 in the route's own error shape.
            responses = getattr(self, "responses", None)
            if responses and "400" in responses and "422" not in responses:
                responses["422"] = replace(responses["400"], description=_KEY_REUSED)

    return IdempotentOperation
