"""The gate's and the request log's path sets, read from the routes themselves: a route says
in its `opt` whether it is open without an API key or takes a JSON body, so adding a route
cannot leave a hand-kept list behind."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from litestar import Litestar

# `opt` keys a route handler may carry.
ACCESS = "access"  # "open": no API key needed; "metrics": open unless metrics need the key
JSON_BODY = "json_body"  # True: a POST body must be JSON

OPEN: dict[str, Any] = {ACCESS: "open"}
METRICS: dict[str, Any] = {ACCESS: "metrics"}
JSON: dict[str, Any] = {JSON_BODY: True}


@dataclass(frozen=True, slots=True)
class RoutePaths:
    known: frozenset[str]  # reported as themselves in logs and metrics; others are "unmatched"
    open: frozenset[str]  # served without an API key
    json_bodies: frozenset[str]  # POST bodies must be JSON
    # Open routes with path parameters (static files): everything under these prefixes.
    open_prefixes: tuple[str, ...] = ()

    @classmethod
    def of(cls, app: Litestar, *, docs_path: str, metrics_need_key: bool) -> RoutePaths:
        open_access = {"open"} if metrics_need_key else {"open", "metrics"}
        known, open_, json_bodies = set(), {docs_path, f"{docs_path}/openapi.json"}, set()
        open_prefixes = set()
        for route in app.routes:
            if route.path.startswith(docs_path):  # the docs are not the API's
                continue
            if "{" in route.path:
                # Paths with parameters never equal a request's path.
                if any(h.opt.get(ACCESS) == "open" for h in route.route_handlers):
                    open_prefixes.add(route.path[: route.path.index("{")])
                continue
            known.add(route.path)
            for handler in route.route_handlers:
                if handler.opt.get(ACCESS) in open_access:
                    open_.add(route.path)
                if handler.opt.get(JSON_BODY):
                    json_bodies.add(route.path)
        return cls(
            frozenset(known), frozenset(open_), frozenset(json_bodies), tuple(sorted(open_prefixes))
        )
