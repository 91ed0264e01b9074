"""The translator page at `/`, where the settings keep it (`--no-ui` leaves it out)."""

from __future__ import annotations

from translate_server.registration import Domain
from translate_server.ui.routes import ui_router

DOMAIN = Domain(
    "page",
    routes=lambda settings: (
        [ui_router(settings, documents=settings.documents.documents)] if settings.server.ui else []
    ),
)
