"""What the DeepL API keeps per API key, in its database across restarts and replicas: the
characters billed to it, its glossaries and its style rules."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from translate_server import owners
from translate_server.compat.deepl.style_rules import StyleRuleStore
from translate_server.compat.deepl.usage import UsageStore
from translate_server.glossaries.store import GlossaryStore
from translate_server.storage.database import Database

# What `/v2/usage` reports as the limit: DeepL's own figure for an account without one (its
# clients read `count >= limit` as "limit reached", so 0 would mean exhausted).
UNLIMITED = 1_000_000_000_000


@dataclass(frozen=True, slots=True)
class DeepLAccounts:
    database: Database
    glossaries: GlossaryStore
    usage: UsageStore
    style_rules: StyleRuleStore
    # The account a presented key's things belong to (`KeyDirectory.account_of_key`).
    owner_of: Callable[[str], str]

    @classmethod
    def over(
        cls, database: Database, owner_of: Callable[[str], str] = owners.owner_of
    ) -> DeepLAccounts:
        """The accounts kept in `database` (its `accounts` tables migrated by the caller)."""
        return cls(
            database,
            GlossaryStore(database),
            UsageStore(database),
            StyleRuleStore(database, owner_of),
            owner_of,
        )

    async def bill(self, key: str, characters: int) -> None:
        await self.usage.add(self.owner_of(key), characters)

    async def characters(self, key: str) -> int:
        return await self.usage.characters(self.owner_of(key))
