"""What the LibreTranslate domain provides to the app's services."""

from __future__ import annotations

from typing import TYPE_CHECKING

from translate_server.services import Key

if TYPE_CHECKING:
    from translate_server.compat.libretranslate.service import LibreTranslateService
    from translate_server.compat.libretranslate.suggestions import SuggestionBox

LIBRETRANSLATE: Key[LibreTranslateService] = Key("libretranslate")
# Where suggestions go: provided by the process that owns the stores, where they are on.
LIBRE_SUGGESTIONS: Key[SuggestionBox] = Key("libretranslate suggestions")
