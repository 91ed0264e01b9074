"""Scopes, over every operation of the OpenAPI document: a key without the operation's scope
is refused with a 403 naming it, in its surface's own error shape, and a key with that scope
alone gets past the check (whatever the operation then answers to an empty request)."""

from __future__ import annotations

import re
from typing import Any

from litestar.routes import HTTPRoute

from translate_server.accounts import scopes
from translate_server.http.route_paths import ACCESS, SCOPE
from translate_server.http.scopes import needed_scope

from tests.support.harness import running

ADMIN = {"Authorization": "Bearer admin-secret"}
# The paths whose refusals take another API's shape, and how to read the message there.
SHAPES = (
    ("/language/translate/v2", lambda body: body["error"]["message"]),
    ("/v3/projects/", lambda body: body["error"]["message"]),
    ("/libretranslate/", lambda body: body["error"]),
    ("/deeplx/", lambda body: body["message"]),
    ("/v2/", lambda body: body["message"]),
    ("/v3/", lambda body: body["message"]),
    ("/", lambda body: body["error"]["message"]),
)


def scoped_operations(app: Any) -> list[tuple[str, str, str]]:
    """(method, path with its parameters filled, scope) for every operation in the OpenAPI
    document that needs a key."""
    scope_of = {}
    for route in app.routes:
        assert isinstance(route, HTTPRoute)
        for handler in route.route_handlers:
            if handler.opt.get(ACCESS) in ("open", "metrics"):
                continue
            plain = re.sub(r"\{(\w+):\w+\}", r"{\1}", route.path)
            for method in handler.http_methods - {"OPTIONS", "HEAD"}:
                scope_of[(method, plain)] = needed_scope(handler.opt.get(SCOPE), method)
    found = []
    for path, operations in app.openapi_schema.to_schema()["paths"].items():
        for method in operations:
            needed = scope_of.get((method.upper(), path))
            if needed is not None:
                found.append((method.upper(), re.sub(r"\{\w+\}", "1", path), needed))
    return found


def message(path: str, body: Any) -> str:
    reader = next(read for prefix, read in SHAPES if path.startswith(prefix))
    return str(reader(body))


async def test_each_operation_refuses_a_key_without_its_scope_and_takes_one_with_it(
    make_app,
) -> None:
    app = make_app(admin_key="admin-secret")
    async with running(app) as client:
        await client.post("/admin/accounts", json={"name": "team"}, headers=ADMIN)
        without, only = {}, {}
        for scope in scopes.ALL:
            for keys, granted in ((without, scopes.ALL - {scope}), (only, {scope})):
                made = await client.post(
                    "/admin/keys",
                    json={"account": "team", "scopes": sorted(granted)},
                    headers=ADMIN,
                )
                keys[scope] = {"Authorization": f"Bearer {made.json()['key']}"}
        operations = scoped_operations(app)
        assert len(operations) > 60
        for method, path, scope in operations:
            refused = await client.request(method, path, json={}, headers=without[scope])
            assert refused.status_code == 403, (method, path, refused.text)
            assert f"`{scope}`" in message(path, refused.json()), (method, path, refused.text)
            taken = await client.request(method, path, json={}, headers=only[scope])
            assert taken.status_code not in (401, 403), (method, path, taken.text)
