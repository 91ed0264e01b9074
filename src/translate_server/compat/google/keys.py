"""What the Google domain provides to the app's services."""

from __future__ import annotations

from typing import TYPE_CHECKING

from translate_server.services import Key

if TYPE_CHECKING:
    from translate_server.compat.google.adaptive import AdaptiveMt
    from translate_server.compat.google.service import GoogleTranslator

GOOGLE: Key[GoogleTranslator] = Key("google")
GOOGLE_ADAPTIVE: Key[AdaptiveMt] = Key("google adaptive mt")
