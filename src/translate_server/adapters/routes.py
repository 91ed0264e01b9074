"""/admin/adapters: list, load and unload LoRA adapters at run time.

Behind `--admin-key` alone (a bearer token compared in constant time), not the clients' API
keys: loading reads any adapter folder the server can see. Without an admin key the routes
answer 404, as if they did not exist. At most `--max-loras` adapters are held; a load beyond
that is a 409 until one is unloaded.
"""

from __future__ import annotations

import hmac
from typing import Annotated, Any

from litestar import Request, Response, Router, delete, route
from litestar.exceptions import NotFoundException
from litestar.openapi import ResponseSpec
from msgspec import Meta

from translate_server.accounts import scopes
from translate_server.adapters.catalog import AdapterCatalog
from translate_server.adapters.keys import ADAPTERS
from translate_server.adapters.spec import AdapterSpec, AdapterSpecError, read_adapter
from translate_server.errors import AuthenticationError, InvalidRequestError
from translate_server.http.bodies import read_body
from translate_server.http.openapi import error_responses
from translate_server.http.requests import header_key
from translate_server.http.route_paths import JSON_BODY, OPEN, scoped
from translate_server.services import services
from translate_server.wire import RequestStruct, ResponseStruct

# The router's `opt` entry holding the admin key.
ADMIN_KEY = "admin_key"


class LoadAdapterRequest(RequestStruct, kw_only=True):
    name: Annotated[str, Meta(description="The name clients give as `model`.")]
    path: Annotated[str, Meta(description="A peft LoRA folder on the server.")]
    serves: (
        Annotated[
            list[str],
            Meta(
                description="Pairs and domains it serves (`en-de`, `en-*`, `domain=ui`); "
                "by default what its `translate-server.json` says."
            ),
        ]
        | None
    ) = None


class AdapterObject(ResponseStruct, kw_only=True):
    name: str
    path: str
    serves: list[str]
    rank: int
    parent: str


class AdapterList(ResponseStruct, kw_only=True):
    data: list[AdapterObject]
    max_loras: int


def _catalog(request: Request[Any, Any, Any]) -> AdapterCatalog:
    key = request.route_handler.opt.get(ADMIN_KEY)
    if not key:
        raise NotFoundException()
    if not hmac.compare_digest(header_key(request).encode(), key.encode()):
        raise AuthenticationError("The admin routes need `Authorization: Bearer <admin key>`.")
    catalog = services(request).get(ADAPTERS)
    if catalog is None:
        raise InvalidRequestError(
            "This server was started without LoRA support: start it with --lora or --enable-lora.",
            code="lora_not_enabled",
        )
    return catalog


def _object(spec: AdapterSpec, catalog: AdapterCatalog) -> AdapterObject:
    return AdapterObject(
        name=spec.name,
        path=spec.path,
        serves=spec.serves,
        rank=spec.rank,
        parent=catalog.base_model,
    )


# One handler for both methods: Litestar's automatic OPTIONS answer (`Allow`) lists only the
# methods of the first handler registered for a path.
@route(
    "/",
    http_method=["GET", "POST"],
    status_code=200,
    summary='The loaded LoRA adapters (GET), or load one (POST `{"name", "path", "serves"}`, 201)',
    responses={
        201: ResponseSpec(
            data_container=AdapterObject, generate_examples=False, description="The adapter loaded"
        ),
        **error_responses(400, 401, 404, 409, 415),
    },
    opt={**OPEN, JSON_BODY: True},
)
async def adapter_collection(
    request: Request[Any, Any, Any],
) -> Response[AdapterList | AdapterObject]:
    catalog = _catalog(request)
    if request.method == "GET":
        listed = [_object(spec, catalog) for spec in catalog.specs]
        return Response(AdapterList(data=listed, max_loras=catalog.max_loras))
    data = await read_body(request, LoadAdapterRequest)
    try:
        spec = read_adapter(data.name, data.path, data.serves)
    except AdapterSpecError as exc:
        raise InvalidRequestError(str(exc), param="path", code="invalid_adapter") from None
    await catalog.load(spec)
    return Response(_object(spec, catalog), status_code=201)


@delete(
    "/{name:str}",
    status_code=204,
    summary="Unload a LoRA adapter",
    responses=error_responses(401, 404),
    opt=OPEN,
)
async def unload_adapter(name: str, request: Request[Any, Any, Any]) -> None:
    await _catalog(request).unload(name)


def admin_router(admin_key: str | None) -> Router:
    """The admin routes, behind `admin_key` (None: they answer 404)."""
    return Router(
        "/admin/adapters",
        route_handlers=[adapter_collection, unload_adapter],
        tags=["admin"],
        opt={ADMIN_KEY: admin_key, **scoped(scopes.ADMIN)},
    )
