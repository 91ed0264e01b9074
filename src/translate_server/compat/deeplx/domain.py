"""The DeepLX domain: DeepLX's API (OwO-Network/DeepLX) under /deeplx/, over the translation
service."""

from __future__ import annotations

from translate_server.compat.deeplx.keys import DEEPLX
from translate_server.compat.deeplx.routes import deeplx_router
from translate_server.registration import Domain, Opening
from translate_server.translation.keys import TRANSLATION


async def _open(opening: Opening) -> None:
    from translate_server.compat.deeplx.service import DeepLXService

    opening.services.provide(DEEPLX, DeepLXService(opening.services[TRANSLATION]))


DOMAIN = Domain(
    "deeplx",
    routes=lambda settings: [deeplx_router()],
    open=_open,
    needs=(TRANSLATION,),
    provides=(DEEPLX,),
)
