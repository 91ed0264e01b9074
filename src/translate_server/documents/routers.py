"""The document routes as mounted: ours, DeepL's and LibreTranslate's, each router taking
bodies up to a document's size (the app's body limit is for JSON requests)."""

from __future__ import annotations

from litestar import Router

from translate_server.documents.compat import (
    DEEPL_ROUTES,
    libre_download_file,
    libre_translate_file,
)
from translate_server.documents.routes import (
    FORM_OVERHEAD,
    document_events,
    document_result,
    document_status,
    submit_document,
)
from translate_server.http.errors import exception_handlers
from translate_server.translation.compat.common import body_key_check
from translate_server.translation.compat.deepl.routes import KEY_FIELD as DEEPL_KEY
from translate_server.translation.compat.deepl.routes import error_shape as deepl_shape
from translate_server.translation.compat.libretranslate.routes import KEY_FIELD as LIBRE_KEY
from translate_server.translation.compat.libretranslate.routes import error_shape as libre_shape


def document_routers(max_bytes: int) -> list[Router]:
    """Ours, DeepL's and LibreTranslate's document routes, each taking bodies up to a
    document's size (the app's body limit is for JSON requests)."""
    size = max_bytes + FORM_OVERHEAD
    return [
        Router(
            path="/",
            route_handlers=[submit_document, document_status, document_result, document_events],
            request_max_body_size=size,
        ),
        # Where the gate left the key check to the route (a key sent in the body), these check.
        Router(
            path="/v2",
            route_handlers=DEEPL_ROUTES,
            request_max_body_size=size,
            exception_handlers=exception_handlers(deepl_shape),
            before_request=body_key_check(DEEPL_KEY),
        ),
        Router(
            path="/libretranslate",
            route_handlers=[libre_translate_file],
            request_max_body_size=size,
            exception_handlers=exception_handlers(libre_shape),
            before_request=body_key_check(LIBRE_KEY),
        ),
        # LibreTranslate's download link is followed as it is (a browser link, no key): the
        # job's id and secret key in its path are what authorizes it, as there.
        Router(
            path="/libretranslate",
            route_handlers=[libre_download_file],
            exception_handlers=exception_handlers(libre_shape),
        ),
    ]
