"""What the glossaries domain provides to the app's services."""

from __future__ import annotations

from typing import TYPE_CHECKING

from translate_server.services import Key

if TYPE_CHECKING:
    from translate_server.glossaries.service import Glossaries

# The stored glossaries; provided by the process that owns the stores.
GLOSSARIES: Key[Glossaries] = Key("glossaries")
