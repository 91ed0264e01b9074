"""Every route that needs a key declares the scope it needs (`route_paths.SCOPE`), and a read
is told from a write by its method."""

from __future__ import annotations

from litestar.routes import HTTPRoute

from translate_server.accounts import scopes
from translate_server.app import create_app
from translate_server.http.openapi import DOCS_PATH
from translate_server.http.route_paths import ACCESS, SCOPE
from translate_server.http.scopes import needed_scope
from translate_server.settings import Settings

from tests.support.fakes import FakeEngine


def test_every_route_that_needs_a_key_declares_its_scope() -> None:
    app = create_app(Settings(), FakeEngine)
    undeclared = []
    for route in app.routes:
        assert isinstance(route, HTTPRoute)
        if route.path.startswith(DOCS_PATH):
            continue
        for handler in route.route_handlers:
            if handler.opt.get(ACCESS) in ("open", "metrics") or handler.http_methods == {
                "OPTIONS"
            }:
                continue
            for method in handler.http_methods:
                needed = needed_scope(handler.opt.get(SCOPE), method)
                if needed not in scopes.ALL:
                    undeclared.append(f"{method} {route.path}")
    assert undeclared == []


def test_reads_and_writes_need_their_own_scopes() -> None:
    pair = (scopes.MEMORIES_READ, scopes.MEMORIES_WRITE)
    assert needed_scope(pair, "GET") == needed_scope(pair, "HEAD") == scopes.MEMORIES_READ
    assert needed_scope(pair, "POST") == needed_scope(pair, "DELETE") == scopes.MEMORIES_WRITE
    assert needed_scope(scopes.TRANSLATE, "POST") == scopes.TRANSLATE
    assert needed_scope(None, "GET") is None
