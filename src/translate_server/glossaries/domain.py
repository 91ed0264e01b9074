"""The glossaries domain: stored glossaries in the accounts' database (DeepL's routes keep the
same ones), /glossaries, and what translation looks them up in (`glossary_id`)."""

from __future__ import annotations

from translate_server.glossaries.keys import GLOSSARIES
from translate_server.glossaries.routes import glossary_router
from translate_server.registration import Domain, Opening


async def _open(opening: Opening) -> None:
    if not opening.owns_stores:  # another front end owns them; requests are forwarded there
        return
    from translate_server.glossaries.service import Glossaries
    from translate_server.glossaries.store import GlossaryStore

    store = GlossaryStore(opening.database("accounts"))
    opening.services.provide(GLOSSARIES, Glossaries(store))


DOMAIN = Domain(
    "glossaries",
    # A TBX file: as large as a translation memory's file may be.
    routes=lambda settings: [glossary_router(settings.translation.max_memory_bytes)],
    open=_open,
    stores=lambda settings: ["accounts"],
    provides=(GLOSSARIES,),
)
