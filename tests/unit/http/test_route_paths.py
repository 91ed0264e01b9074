"""The gate's path sets come from the routes themselves."""

from __future__ import annotations

import typing

import msgspec
from litestar.routes import HTTPRoute

from translate_server.app import create_app
from translate_server.compat.google.protocol import (
    GoogleAdaptiveMtRequest,
    GoogleV3TranslateRequest,
)
from translate_server.http.openapi import DOCS_PATH
from translate_server.http.route_paths import STORES, RoutePaths
from translate_server.settings import load_settings


def paths(metrics_need_key: bool) -> RoutePaths:
    app = create_app(load_settings({}, environ={}), lambda: None)  # type: ignore[arg-type,return-value]
    return RoutePaths.of(app, docs_path=DOCS_PATH, metrics_need_key=metrics_need_key)


def test_open_paths_are_health_docs_and_metrics_unless_metrics_need_the_key() -> None:
    # LibreTranslate's languages and web-page settings are open, as LibreTranslate's own.
    # And the translator page, which asks for the key itself.
    assert paths(False).open == {
        "/health",
        "/health/ready",
        "/health/live",
        "/metrics",
        "/docs",
        "/docs/openapi.json",
        "/libretranslate/languages",
        "/libretranslate/frontend/settings",
        "/",
        "/ui/config.json",
        # Behind the admin key, which the routes check themselves, never a client's key.
        "/admin/adapters",
        # vLLM's, open as vLLM's own.
        "/version",
    }
    assert "/metrics" not in paths(True).open


def test_the_pages_and_docs_assets_admin_and_deepls_storage_urls_are_open_by_prefix() -> None:
    # DeepL's clients send no key to a memory's upload or download URL: its token is the key.
    # The admin routes check their own key. /docs is open, and so are Swagger UI's files.
    assert paths(False).open_prefixes == (
        "/admin/adapters/",
        "/docs/assets/",
        "/ui/",
        "/v3/translation_memories/downloads/",
        "/v3/translation_memories/uploads/",
    )


def test_json_bodies_are_the_routes_that_decode_json_themselves() -> None:
    assert paths(False).json_bodies == {
        "/translate",
        "/detect",
        "/v1/chat/completions",
        "/v1/responses",
        "/v1/completions",
        "/memories",
        "/translate/corrections",
        "/translate/estimate",
        "/glossaries",
        "/admin/adapters",
        "/admin/accounts",
        "/admin/keys",
        "/tokenize",
        "/detokenize",
        "/v1/batches",
    }


def test_known_paths_are_every_route_without_parameters_except_the_docs() -> None:
    known = paths(False).known
    assert {
        "/translate",
        "/v1/models",
        "/v2/translate",
        "/libretranslate/languages",
        "/health",
        "/metrics",
    } <= known
    assert not any(path.startswith("/docs") or "{" in path for path in known)


def test_the_compatible_apis_prefixes_come_from_their_routers() -> None:
    from translate_server.compat.deepl.routes import error_shape as deepl_shape
    from translate_server.compat.deeplx.routes import error_shape as deeplx_shape
    from translate_server.compat.google.routes import v2_error, v3_error
    from translate_server.compat.libretranslate.routes import error_shape as libre_shape

    found = paths(False)
    # The longest first: Google's v3 claims only `/v3/projects/`, DeepL keeps the rest of /v3.
    assert found.error_shapes == (
        ("/libretranslate/", libre_shape),
        ("/v3/projects/", v3_error),
        ("/language/", v2_error),
        ("/deeplx/", deeplx_shape),
        ("/v2/", deepl_shape),
        ("/v3/", deepl_shape),  # DeepL's translation memories
    )
    assert found.body_key_prefixes == (
        "/deeplx/",
        "/language/",
        "/libretranslate/",
        "/v2/",
        "/v3/",
        "/v3/projects/",
    )
    assert found.cors_prefixes == (
        "/deeplx/",
        "/language/",
        "/libretranslate/",
        "/v3/projects/",
    )


def test_the_body_fields_a_route_says_name_a_store_are_fields_of_its_body() -> None:
    """What owner forwarding reads of a body is what the route declares, and each name is a
    field of the body the route decodes (a renamed field cannot leave the declaration behind)."""
    app = create_app(load_settings({}, environ={}), lambda: None)  # type: ignore[arg-type,return-value]
    declared = {}
    for route in app.routes:
        assert isinstance(route, HTTPRoute)
        for handler in route.route_handlers:
            if isinstance(fields := handler.opt.get(STORES), tuple):
                # Google's v3 methods decode their bodies themselves, by the method's name.
                body = typing.get_type_hints(handler.fn).get("data")
                bodies = [body] if body else [GoogleV3TranslateRequest, GoogleAdaptiveMtRequest]
                names = {f.name for body in bodies for f in msgspec.structs.fields(body)}
                assert set(fields) <= names
                declared[route.path] = fields
    google = ("glossaryConfig", "dataset")
    assert declared == {
        "/translate": ("memory", "glossary_id"),
        "/v3/projects/{parent:str}": google,
        "/v3/projects/{project:str}/locations/{location:str}": google,
    }
    found = paths(False)
    assert found.store_fields_for("/translate") == ("memory", "glossary_id")
    assert found.store_fields_for("/v3/projects/p/locations/global:translateText") == google
    assert found.store_fields_for("/v2/translate") is None


def test_the_idempotent_routes_are_those_that_declare_it() -> None:
    patterns = paths(False).idempotent

    def idempotent(path: str) -> bool:
        return any(pattern.fullmatch(path) for pattern in patterns)

    for path in (
        "/translate",
        "/translate/document",
        "/translate/corrections",
        "/memories/mem_0123/import",
        "/glossaries/g-1/tbx",
        "/v1/chat/completions",
        "/v2/translate",
    ):
        assert idempotent(path), path
    for path in ("/detect", "/memories", "/memories/a/b/import", "/v1/completions"):
        assert not idempotent(path), path
    # An upload's body is read whole up to its route's own limit, not the JSON routes'.
    assert paths(False).idempotent_max_body > load_settings({}, environ={}).limits.max_body_bytes
