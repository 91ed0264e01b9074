"""`translate-server db upgrade | current | copy`: the stores' schemas brought to their head
revision, shown, or every row copied into another database (an SQLite data folder into
PostgreSQL). What each does is printed, a line per store or table; an unreachable database is
an error naming it (password hidden) and exit status 1."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from translate_server.errors import StorageUnavailableError
from translate_server.settings import Settings
from translate_server.storage.copying import CopyConflictError, copy_store
from translate_server.storage.locations import (
    STORES,
    Locations,
    database_url,
    locations,
    shown,
    sqlite_url,
)
from translate_server.storage.migrate import current, head, upgrade
from translate_server.storage.opening import StoreDatabases


def add_commands(parser: argparse.ArgumentParser) -> None:
    """`db`'s own commands; the caller adds the options that say where the stores are."""
    commands = parser.add_subparsers(dest="db_command", metavar="DB_COMMAND", required=True)
    commands.add_parser("upgrade", help="migrate every store's tables to the current schema")
    commands.add_parser("current", help="show each store's schema revision and where it is")
    copy = commands.add_parser(
        "copy",
        help="copy every store's rows into another database (idempotent)",
        description="Copy the memories, DeepL accounts and document jobs into another "
        "database, typically PostgreSQL for several replicas. Rows the target has already are "
        "left as they are, so the copy can be run again; it prints its counts per table.",
    )
    copy.add_argument(
        "--from",
        dest="source",
        metavar="DIR",
        help="an SQLite data folder (memories.sqlite3, glossaries.sqlite3, documents/); "
        "default: where the options above put the stores",
    )
    copy.add_argument("--to", dest="target", required=True, metavar="URL", help="postgresql://...")


def run(args: argparse.Namespace, settings: Settings) -> int:
    try:
        if args.db_command == "copy":
            source = Path(args.source).expanduser() if args.source else None
            where = _data_folder(source) if source else locations(settings)
            return asyncio.run(_copy(where, args.target))
        return asyncio.run(_run(args, settings))
    except (StorageUnavailableError, ValueError, CopyConflictError) as failed:
        print(f"translate-server db {args.db_command}: {failed}", flush=True)
        return 1


async def _run(args: argparse.Namespace, settings: Settings) -> int:
    databases = StoreDatabases.of(settings)
    try:
        for store in STORES:
            database = databases.database(store)
            if args.db_command == "upgrade":
                done = await upgrade(database, store, document_dir=databases.where.document_dir)
                what = f"upgraded {done.before} -> {done.after}" if done.migrated else "at head"
                print(f"{store}: {what} ({done.after}) {database.shown_url}", flush=True)
            else:
                found = await current(database, store)
                print(f"{store}: {found} (head {head(store)}) {database.shown_url}", flush=True)
    finally:
        await databases.close()
    return 0


async def _copy(where: Locations, target_url: str) -> int:
    sources, targets = StoreDatabases(where), StoreDatabases(_everything_in(target_url))
    try:
        for store in STORES:
            source, target = await sources.migrated(store), await targets.migrated(store)
            print(f"{store}: {source.shown_url} -> {shown(target.url)}", flush=True)
            for copied in await copy_store(source, target, store):
                print(f"  {copied}", flush=True)
    finally:
        await sources.close()
        await targets.close()
    return 0


def _data_folder(folder: Path) -> Locations:
    if not folder.is_dir():
        raise ValueError(f"--from {folder}: no such folder")
    documents = folder / "documents"
    return Locations(
        sqlite_url(folder / "memories.sqlite3"),
        sqlite_url(folder / "glossaries.sqlite3"),
        sqlite_url(documents / "jobs.sqlite3"),
        documents,
    )


def _everything_in(url: str) -> Locations:
    target = database_url(url)
    return Locations(target, target, target, Path("."))
