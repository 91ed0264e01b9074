"""What was used, per account, key, day (UTC), route and language pair: counted in memory as
requests end, and added to the database's counts every `--usage-flush-seconds` (and when the
server stops), one upsert per row that changed, never a write per request."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from datetime import UTC, datetime

import msgspec
import structlog
from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from translate_server.errors import StorageUnavailableError
from translate_server.storage.account_tables import usage_counts
from translate_server.storage.database import Database

log = structlog.get_logger(__name__)

# account, key id, day, route, source language, target language
UsageKey = tuple[str, str, str, str, str, str]
MEASURES = ("requests", "characters", "tokens", "documents")


class UsageRow(msgspec.Struct, frozen=True, kw_only=True):
    account: str
    key_id: str
    day: str
    route: str
    source_lang: str
    target_lang: str
    requests: int
    characters: int
    tokens: int
    documents: int


@dataclass(slots=True)
class _Counts:
    requests: int = 0
    characters: int = 0
    tokens: int = 0
    documents: int = 0


# Accounts named in /metrics; the rest are counted together as "other", so that the series
# stay bounded however many accounts there are.
MAX_ACCOUNT_LABELS = 1000
OTHER = "other"


class UsageLedger:
    def __init__(self, database: Database | None = None) -> None:
        self.database = database
        self._pending: dict[UsageKey, _Counts] = {}
        # Since this process started, per account (for /metrics).
        self.totals: dict[str, _Counts] = {}

    def add(
        self,
        account: str,
        key_id: str,
        route: str,
        pair: tuple[str, str] = ("", ""),
        *,
        requests: int = 1,
        characters: int = 0,
        tokens: int = 0,
        documents: int = 0,
    ) -> None:
        day = datetime.now(UTC).strftime("%Y-%m-%d")
        key = (account, key_id, day, route, pair[0], pair[1])
        counts = self._pending.get(key)
        if counts is None:
            counts = self._pending[key] = _Counts()
        for counted in (counts, self._total(account)):
            counted.requests += requests
            counted.characters += characters
            counted.tokens += tokens
            counted.documents += documents

    def _total(self, account: str) -> _Counts:
        found = self.totals.get(account)
        if found is None:
            if len(self.totals) >= MAX_ACCOUNT_LABELS and account != OTHER:
                return self._total(OTHER)
            found = self.totals[account] = _Counts()
        return found

    async def flush(self) -> None:
        """Add what was counted since the last flush to the database's counts; kept for the
        next one where the database cannot be reached."""
        if self.database is None or not self._pending:
            return
        pending, self._pending = self._pending, {}
        database = self.database

        def write(c: Connection) -> None:
            for key, counts in pending.items():
                values: dict[str, str | int] = dict(zip(_KEY_COLUMNS, key, strict=True))
                values.update(_values(counts))
                insert = database.insert(usage_counts).values(**values)
                c.execute(
                    insert.on_conflict_do_update(
                        index_elements=list(_KEY_COLUMNS),
                        set_={m: usage_counts.c[m] + insert.excluded[m] for m in MEASURES},
                    )
                )

        try:
            await database.write(write)
        except StorageUnavailableError:
            for key, counts in pending.items():  # counted again at the next flush
                self._merge(key, counts)
            raise

    async def run(self, every: float) -> None:
        """Flush every `every` seconds, for the app's life."""
        while True:
            await asyncio.sleep(every)
            with contextlib.suppress(StorageUnavailableError):
                await self.flush()

    async def rows(self, since: str, until: str, account: str | None = None) -> list[UsageRow]:
        """The counts of the days `since`..`until` (YYYY-MM-DD, both included), the ones not
        yet flushed with them."""
        await self.flush()
        if self.database is None:
            return []
        u = usage_counts.c
        query = select(*[u[c] for c in _KEY_COLUMNS], *[u[m] for m in MEASURES]).where(
            u.day >= since, u.day <= until
        )
        if account is not None:
            query = query.where(u.account == account)
        query = query.order_by(*[u[c] for c in _KEY_COLUMNS])
        found = await self.database.read(lambda c: c.execute(query).all())
        return [UsageRow(**row._asdict()) for row in found]

    async def characters_since(self, account: str, since: str) -> int:
        if self.database is None:
            return 0
        u = usage_counts.c
        query = select(func.coalesce(func.sum(u.characters), 0)).where(
            u.account == account, u.day >= since
        )
        return int(await self.database.read(lambda c: c.execute(query).scalar()) or 0)

    def _merge(self, key: UsageKey, counts: _Counts) -> None:
        mine = self._pending.setdefault(key, _Counts())
        for measure in MEASURES:
            setattr(mine, measure, getattr(mine, measure) + getattr(counts, measure))


_KEY_COLUMNS = ("account", "key_id", "day", "route", "source_lang", "target_lang")


def _values(counts: _Counts) -> dict[str, int]:
    return {m: getattr(counts, m) for m in MEASURES}
