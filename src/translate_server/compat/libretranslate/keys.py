"""What the LibreTranslate domain provides to the app's services."""

from __future__ import annotations

from typing import TYPE_CHECKING

from translate_server.services import Key

if TYPE_CHECKING:
    from translate_server.compat.libretranslate.service import LibreTranslateService

LIBRETRANSLATE: Key[LibreTranslateService] = Key("libretranslate")
