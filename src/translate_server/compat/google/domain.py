"""The Google domain: Google Cloud Translation's REST API, basic edition (v2) and the advanced
edition's (v3) text methods, over the translation service; its glossaries and adaptive MT
datasets are the stored glossaries and translation memories."""

from __future__ import annotations

from translate_server.compat.google.keys import GOOGLE, GOOGLE_ADAPTIVE
from translate_server.compat.google.routes import google_routers
from translate_server.memory.keys import MEMORIES
from translate_server.registration import Domain, Opening
from translate_server.translation.keys import TRANSLATION


async def _open(opening: Opening) -> None:
    from translate_server.compat.google.adaptive import AdaptiveMt
    from translate_server.compat.google.service import GoogleTranslator

    found = opening.services
    translator = GoogleTranslator(found[TRANSLATION])
    found.provide(GOOGLE, translator)
    # Its datasets are memories, where this process owns them (else it is forwarded there).
    found.provide(GOOGLE_ADAPTIVE, AdaptiveMt(translator, found.get(MEMORIES)))


DOMAIN = Domain(
    "google",
    routes=lambda settings: google_routers(),
    open=_open,
    needs=(TRANSLATION,),
    uses=(MEMORIES,),
    provides=(GOOGLE, GOOGLE_ADAPTIVE),
)
