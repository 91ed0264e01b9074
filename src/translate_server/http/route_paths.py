"""The gate's and the request log's path sets, read from the routes themselves: a route says
in its `opt` whether it is open without an API key or takes a JSON body, and a compatible API's
router (`compatible`) whose error shape its refusals take, so adding a route cannot leave a
hand-kept list behind."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from litestar import Litestar
from litestar.routes import HTTPRoute

from translate_server.http.errors import ErrorShape

# `opt` keys a route handler may carry.
ACCESS = "access"  # "open": no API key needed; "metrics": open unless metrics need the key
JSON_BODY = "json_body"  # True: a POST body must be JSON

OPEN: dict[str, Any] = {ACCESS: "open"}
METRICS: dict[str, Any] = {ACCESS: "metrics"}
JSON: dict[str, Any] = {JSON_BODY: True}
# A compatible API's routes: everything under their first path segment ("/v2/"), or under
# the longer prefix they name, is theirs.
ERROR_SHAPE = "error_shape"  # the shape of the gate's refusals there
KEY_IN_BODY = "key_in_body"  # True: a request without a key header may carry one in its body
CORS = "cors"  # True: browsers on other origins may call it
PREFIX = "prefix"  # where a compatible API shares its first segment with another ("/v3/")
# What a route reads or writes of the stores (memories, glossaries and DeepL's accounts,
# document jobs): "always", or the tuple of its JSON body's fields that name a store (a
# translation memory, a stored glossary), where it needs them only when its body gives one
# (server/owner_forwarding.py reads those fields alone). With several front-end processes,
# such requests go to the one that owns the stores.
STORES = "stores"
# True: a POST takes an `Idempotency-Key`, and identical ones in flight share a run
# (`http.idempotency`). KEYED_ONLY: the key alone, for a route whose answers are sampled (an
# identical chat request sent twice at once may be asking for two different answers).
IDEMPOTENT = "idempotent"
KEYED_ONLY = "keyed"

# The scope (`accounts.scopes`) a key needs for the route: one name, or a `(read, write)` pair
# for a route that reads with GET and writes with other methods (`scoped`). Every route that
# is not open declares one (tests/unit/http/test_scopes.py).
SCOPE = "scope"


def scoped(read: str, write: str | None = None) -> dict[str, Any]:
    """A route's (or a router's) `opt` naming its scope; `write`: the scope of its methods
    other than GET and HEAD."""
    return {SCOPE: read if write is None else (read, write)}


def compatible(
    shape: ErrorShape,
    *,
    scope: str | tuple[str, str],
    cors: bool = False,
    prefix: str | None = None,
    stores: bool = False,
) -> dict[str, Any]:
    """The `opt` of a compatible API's router: its clients expect refusals in their own shape,
    and send their key in the body (checked by the route). `prefix` (ending in "/") claims
    only the paths under it, where another API has the rest of its first segment; `stores`:
    every route of it reads or writes a store; `scope`: its routes' (`SCOPE`), unless a route
    names its own."""
    opt: dict[str, Any] = {
        ERROR_SHAPE: shape,
        KEY_IN_BODY: True,
        CORS: cors,
        PREFIX: prefix,
        SCOPE: scope,
    }
    if stores:
        opt[STORES] = "always"
    return opt


@dataclass(frozen=True, slots=True)
class RoutePaths:
    known: frozenset[str]  # reported as themselves in logs and metrics; others are "unmatched"
    open: frozenset[str]  # served without an API key
    json_bodies: frozenset[str]  # POST bodies must be JSON
    # Open routes with path parameters (static files): everything under these prefixes.
    open_prefixes: tuple[str, ...] = ()
    # The compatible APIs' prefixes: their refusals' shapes (longest prefix first), where a
    # key may come in the body, where browsers on other origins are answered.
    error_shapes: tuple[tuple[str, ErrorShape], ...] = ()
    body_key_prefixes: tuple[str, ...] = ()
    cors_prefixes: tuple[str, ...] = ()
    # Where the stores are read or written: every path under these prefixes, and these paths
    # when their JSON body gives one of the fields named (a translation memory, a glossary).
    store_prefixes: tuple[str, ...] = ()
    store_fields: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # The idempotent routes' paths, a parameter matching one path segment.
    idempotent: tuple[re.Pattern[str], ...] = ()
    # Those of them where identical requests in flight share a run (not KEYED_ONLY).
    shared_runs: tuple[re.Pattern[str], ...] = ()
    idempotent_max_body: int = 0  # the largest body one of them takes (uploads' included)

    def shape_for(self, path: str) -> ErrorShape | None:
        """The error shape of the compatible API `path` belongs to, if any."""
        return next((shape for prefix, shape in self.error_shapes if path.startswith(prefix)), None)

    def needs_stores(self, path: str) -> bool:
        return path.startswith(self.store_prefixes)

    def store_fields_for(self, path: str) -> tuple[str, ...] | None:
        """The body fields that name a store on `path`'s route: its own, or those of a route
        with path parameters (Google's `projects/{project}:translateText`) it falls under."""
        found = self.store_fields.get(path)
        if found is not None:
            return found
        for route, fields in self.store_fields.items():
            if "{" in route and path.startswith(route.split("{", 1)[0]):
                return fields
        return None

    @classmethod
    def of(cls, app: Litestar, *, docs_path: str, metrics_need_key: bool) -> RoutePaths:
        open_access = {"open"} if metrics_need_key else {"open", "metrics"}
        known, open_, json_bodies = set(), {docs_path, f"{docs_path}/openapi.json"}, set()
        open_prefixes = set()
        shapes: dict[str, ErrorShape] = {}
        body_keys, cors = set(), set()
        stores, store_fields = set(), {}
        idempotent: set[str] = set()
        shared_runs: set[str] = set()
        largest = 0
        for route in app.routes:
            assert isinstance(route, HTTPRoute)  # the app serves no websockets or ASGI mounts
            if "{" in route.path and any(h.opt.get(ACCESS) == "open" for h in route.route_handlers):
                # Open routes with path parameters (static files, the docs' own included).
                open_prefixes.add(route.path[: route.path.index("{")])
            if route.path.startswith(docs_path):  # the docs are not the API's
                continue
            for handler in route.route_handlers:
                if declared := handler.opt.get(IDEMPOTENT):
                    idempotent.add(route.path)
                    if declared != KEYED_ONLY:
                        shared_runs.add(route.path)
                    largest = max(largest, handler.resolve_request_max_body_size() or 0)
                if (shape := handler.opt.get(ERROR_SHAPE)) is not None:
                    segment = handler.opt.get(PREFIX) or _first_segment(route.path)
                    assert shapes.setdefault(segment, shape) is shape, f"two shapes: {segment}"
                    if handler.opt.get(KEY_IN_BODY):
                        body_keys.add(segment)
                    if handler.opt.get(CORS):
                        cors.add(segment)
                if (needs := handler.opt.get(STORES)) == "always":
                    stores.add(route.path.split("{", 1)[0])
                elif needs is not None:
                    assert isinstance(needs, tuple), f"{route.path}: {STORES} is a tuple of fields"
                    store_fields[route.path] = needs
            if "{" in route.path:  # paths with parameters never equal a request's path
                continue
            known.add(route.path)
            for handler in route.route_handlers:
                if handler.opt.get(ACCESS) in open_access:
                    open_.add(route.path)
                if handler.opt.get(JSON_BODY):
                    json_bodies.add(route.path)
        return cls(
            frozenset(known),
            frozenset(open_),
            frozenset(json_bodies),
            tuple(sorted(open_prefixes)),
            # The longest prefix first: the gate takes the first that matches.
            error_shapes=tuple(sorted(shapes.items(), key=lambda item: (-len(item[0]), item[0]))),
            body_key_prefixes=tuple(sorted(body_keys)),
            cors_prefixes=tuple(sorted(cors)),
            store_prefixes=tuple(sorted(stores)),
            store_fields=store_fields,
            idempotent=tuple(_pattern(path) for path in sorted(idempotent)),
            shared_runs=tuple(_pattern(path) for path in sorted(shared_runs)),
            idempotent_max_body=largest,
        )


def _pattern(path: str) -> re.Pattern[str]:
    """`/memories/{memory_id:str}/import` -> a pattern of the paths it serves."""
    return re.compile(re.sub(r"\\\{[^}]*\\\}", "[^/]+", re.escape(path)))


def _first_segment(path: str) -> str:
    """`/v2/glossaries/{glossary_id:str}` -> `/v2/`."""
    return "/" + path.split("/", 2)[1] + "/"
