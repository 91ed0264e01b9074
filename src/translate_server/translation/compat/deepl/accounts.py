"""What the DeepL API keeps per API key: the characters translated (since the server started)
and the glossaries (in SQLite, across restarts)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from translate_server.translation.compat.deepl.database import owner_of
from translate_server.translation.compat.deepl.glossaries import GlossaryStore

# What `/v2/usage` reports as the limit: DeepL's own figure for an account without one (its
# clients read `count >= limit` as "limit reached", so 0 would mean exhausted).
UNLIMITED = 1_000_000_000_000


@dataclass
class DeepLAccounts:
    glossaries: GlossaryStore
    _characters: Counter[str] = field(default_factory=Counter)

    def bill(self, key: str, characters: int) -> None:
        self._characters[owner_of(key)] += characters

    def characters(self, key: str) -> int:
        return self._characters[owner_of(key)]
