"""What the documents domain provides to the app's services and what it asks of others, and
its handlers' typed access."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from translate_server.services import Key

if TYPE_CHECKING:
    from translate_server.documents.service import Documents

# The document jobs; provided by the process that owns the stores, where documents are served.
DOCUMENTS: Key[Documents] = Key("documents")
# Characters of a finished job added to the usage of the key it is billed to (an owner
# digest): a surface that bills documents (DeepL's) provides it before the jobs open.
DOCUMENT_BILLING: Key[Callable[[str, int], Awaitable[None]]] = Key("document billing")
