"""The databases one process has open: per URL its engines, shared by every store in that
database (on PostgreSQL all three stores share one pool), disposed of together."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncEngine

from translate_server.storage.database import Database, open_engines


class Storage:
    def __init__(self) -> None:
        self._engines: dict[str, tuple[AsyncEngine, AsyncEngine]] = {}

    def database(self, url: URL) -> Database:
        """The database at `url`, its engines made on first use (no connection is made until
        the first statement). An SQLite file's folder is made here."""
        key = url.render_as_string(hide_password=False)
        if key not in self._engines:
            if url.get_backend_name() == "sqlite" and url.database:
                Path(url.database).parent.mkdir(parents=True, exist_ok=True)
            self._engines[key] = open_engines(url)
        writer, reader = self._engines[key]
        return Database(url, writer, reader)

    @property
    def open(self) -> list[str]:
        """The URLs (passwords hidden) whose engines are made and not yet disposed of."""
        return [
            writer.url.render_as_string(hide_password=True) for writer, _ in self._engines.values()
        ]

    async def close(self) -> None:
        engines, self._engines = self._engines, {}
        for writer, reader in engines.values():
            await writer.dispose()
            if reader is not writer:
                await reader.dispose()
