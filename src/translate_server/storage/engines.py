"""The databases one process has open: per URL its engines, shared by every store in that
database (on PostgreSQL all three stores share one pool), disposed of together."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import URL

from translate_server.storage.database import Database, Engines, open_engines


class Storage:
    def __init__(self) -> None:
        self._engines: dict[str, tuple[URL, Engines]] = {}

    def database(self, url: URL) -> Database:
        """The database at `url`, its engines made on first use (no connection is made until
        the first statement). An SQLite file's folder is made here."""
        key = url.render_as_string(hide_password=False)
        if key not in self._engines:
            if url.get_backend_name() == "sqlite" and url.database:
                Path(url.database).parent.mkdir(parents=True, exist_ok=True)
            self._engines[key] = url, open_engines(url)
        return Database(url, self._engines[key][1])

    @property
    def open(self) -> list[str]:
        """The URLs (passwords hidden) whose engines are made and not yet disposed of."""
        return [url.render_as_string(hide_password=True) for url, _ in self._engines.values()]

    async def close(self) -> None:
        engines, self._engines = self._engines, {}
        for _, opened in engines.values():
            await opened.dispose()
