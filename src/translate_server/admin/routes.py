"""/admin/accounts, /admin/keys and /admin/audit: the operator's API over accounts and keys,
the same operations as `translate-server accounts|keys`. Behind the `admin` scope: a key made
with it, or the `--admin-key`. Every change is in the audit log, naming the key that made it
and the address it came from."""

from __future__ import annotations

from typing import Any, TypeVar

from litestar import Request, Response, Router, get, post, put, route
from litestar.openapi import ResponseSpec

from translate_server.accounts import scopes
from translate_server.accounts.records import Account, Actor, KeyRecord
from translate_server.accounts.scopes import UnknownScopeError
from translate_server.accounts.store import AccountStore
from translate_server.admin.keys import ACCOUNT_STORE
from translate_server.admin.protocol import (
    AccountList,
    AuditList,
    CreateAccountRequest,
    CreatedKey,
    CreateKeyRequest,
    KeyList,
    LimitsRequest,
    RotateKeyRequest,
)
from translate_server.errors import InvalidRequestError
from translate_server.http.bodies import read_body
from translate_server.http.errors import exception_handlers
from translate_server.http.openapi import error_responses
from translate_server.http.requests import caller_of
from translate_server.http.route_paths import JSON, SCOPE
from translate_server.limits.policy import NO_LIMITS
from translate_server.services import services

T = TypeVar("T")

_ERRORS = error_responses(400, 401, 403, 404, 409, 413, 415)


def _store(request: Request[Any, Any, Any]) -> AccountStore:
    return services(request)[ACCOUNT_STORE]


async def _reloaded(request: Request[Any, Any, Any], changed: T) -> T:
    """`changed`, once this replica's key cache has it (the others' within a poll)."""
    await services(request).keys.load()
    return changed


def _actor(request: Request[Any, Any, Any]) -> Actor:
    client = request.client
    return Actor(who=caller_of(request).key_id, origin=client.host if client else "")


# One handler for both methods: Litestar's automatic OPTIONS answer lists only the methods
# of the first handler registered for a path.
@route(
    "/accounts",
    http_method=["GET", "POST"],
    status_code=200,
    summary="Every account with its limits (GET), or a new one (POST, 201)",
    opt=JSON,
    responses={201: ResponseSpec(data_container=Account, generate_examples=False), **_ERRORS},
)
async def account_collection(request: Request[Any, Any, Any]) -> Response[AccountList | Account]:
    if request.method == "GET":
        return Response(AccountList(data=await _store(request).accounts()))
    body = await read_body(request, CreateAccountRequest)
    made = await _store(request).create_account(
        _actor(request), body.name, body.limits or NO_LIMITS
    )
    return Response(await _reloaded(request, made), status_code=201)


@put("/accounts/{name:str}/limits", summary="An account's limits", opt=JSON, responses=_ERRORS)
async def set_account_limits(request: Request[Any, Any, Any], name: str) -> Account:
    body = await read_body(request, LimitsRequest)
    changed = await _store(request).set_account_limits(_actor(request), name, body.limits)
    return await _reloaded(request, changed)


@route(
    "/keys",
    http_method=["GET", "POST"],
    status_code=200,
    summary="Every key, never its value, or an account's (GET); a new key, shown once (POST, 201)",
    opt=JSON,
    responses={201: ResponseSpec(data_container=CreatedKey, generate_examples=False), **_ERRORS},
)
async def key_collection(
    request: Request[Any, Any, Any], account: str | None = None
) -> Response[KeyList | CreatedKey]:
    if request.method == "GET":
        return Response(KeyList(data=await _store(request).keys(account)))
    body = await read_body(request, CreateKeyRequest)
    try:
        granted = scopes.parsed(body.scopes or ())
    except UnknownScopeError as unknown:
        raise InvalidRequestError(str(unknown), param="scopes") from None
    made = await _store(request).create_key(
        _actor(request),
        body.account,
        name=body.name,
        scopes=granted,
        limits=body.limits or NO_LIMITS,
        expires=body.expires,
    )
    created = CreatedKey(key=made.key, data=made.record)
    return Response(await _reloaded(request, created), status_code=201)


@get("/keys/{key_id:str}", summary="A key, by id or prefix", responses=_ERRORS)
async def get_key(request: Request[Any, Any, Any], key_id: str) -> KeyRecord:
    return await _store(request).key(key_id)


@post("/keys/{key_id:str}/revoke", status_code=200, summary="Revoke a key", responses=_ERRORS)
async def revoke_key(request: Request[Any, Any, Any], key_id: str) -> KeyRecord:
    return await _reloaded(request, await _store(request).revoke_key(_actor(request), key_id))


@post(
    "/keys/{key_id:str}/rotate",
    summary="A new key in place of this one, which works for its grace period",
    opt=JSON,
    responses=_ERRORS,
)
async def rotate_key(request: Request[Any, Any, Any], key_id: str) -> CreatedKey:
    body = await read_body(request, RotateKeyRequest)
    made = await _store(request).rotate_key(_actor(request), key_id, body.grace_seconds)
    return await _reloaded(request, CreatedKey(key=made.key, data=made.record))


@put("/keys/{key_id:str}/limits", summary="A key's limits", opt=JSON, responses=_ERRORS)
async def set_key_limits(request: Request[Any, Any, Any], key_id: str) -> KeyRecord:
    body = await read_body(request, LimitsRequest)
    changed = await _store(request).set_key_limits(_actor(request), key_id, body.limits)
    return await _reloaded(request, changed)


@get("/audit", summary="Changes to accounts, keys and limits, oldest first", responses=_ERRORS)
async def audit(request: Request[Any, Any, Any], after: int = 0, limit: int = 100) -> AuditList:
    return AuditList(data=await _store(request).audit(min(max(limit, 1), 1000), after))


def admin_accounts_router() -> Router:
    return Router(
        "/admin",
        route_handlers=[
            account_collection,
            set_account_limits,
            key_collection,
            get_key,
            revoke_key,
            rotate_key,
            set_key_limits,
            audit,
        ],
        tags=["admin"],
        exception_handlers=exception_handlers(),
        opt={SCOPE: scopes.ADMIN},
    )
