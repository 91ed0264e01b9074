"""What the adapters domain provides to the app's services."""

from __future__ import annotations

from typing import TYPE_CHECKING

from translate_server.services import Key

if TYPE_CHECKING:
    from translate_server.adapters.catalog import AdapterCatalog

# The adapters loaded now; provided only where the engine was started for LoRA.
ADAPTERS: Key[AdapterCatalog] = Key("adapters")
