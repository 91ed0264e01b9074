"""What the DeepLX domain provides to the app's services."""

from __future__ import annotations

from typing import TYPE_CHECKING

from translate_server.services import Key

if TYPE_CHECKING:
    from translate_server.compat.deeplx.service import DeepLXService

DEEPLX: Key[DeepLXService] = Key("deeplx")
