"""What the memory domain provides to the app's services."""

from __future__ import annotations

from typing import TYPE_CHECKING

from translate_server.services import Key

if TYPE_CHECKING:
    from translate_server.memory.service import Memories

# The translation memories; provided by the process that owns the stores.
MEMORIES: Key[Memories] = Key("memories")
