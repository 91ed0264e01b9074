"""What the batches domain provides to the app's services, and its handlers' typed access."""

from __future__ import annotations

from typing import TYPE_CHECKING

from translate_server.services import Key

if TYPE_CHECKING:
    from translate_server.batches.service import Batches

# Files and batches; provided by the process that owns the stores, where documents are served.
BATCHES: Key[Batches] = Key("batches")
