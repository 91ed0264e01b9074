"""The Google domain: Google Cloud Translation's REST API, basic edition (v2) and the advanced
edition's (v3) text methods, over the translation service."""

from __future__ import annotations

from translate_server.compat.google.keys import GOOGLE
from translate_server.compat.google.routes import google_routers
from translate_server.registration import Domain, Opening
from translate_server.translation.keys import TRANSLATION


async def _open(opening: Opening) -> None:
    from translate_server.compat.google.service import GoogleTranslator

    opening.services.provide(GOOGLE, GoogleTranslator(opening.services[TRANSLATION]))


DOMAIN = Domain(
    "google",
    routes=lambda settings: google_routers(),
    open=_open,
    needs=(TRANSLATION,),
    provides=(GOOGLE,),
)
