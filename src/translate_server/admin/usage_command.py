"""`translate-server usage`: what was used, per account, key, day, route and language pair,
read from the stores' database (what the replicas flushed), as a table, CSV or JSON."""

from __future__ import annotations

import argparse
import asyncio
import csv
import sys
from datetime import UTC, datetime, timedelta

import msgspec

from translate_server.limits.usage import UsageLedger, UsageRow
from translate_server.settings import Settings
from translate_server.storage.opening import StoreDatabases

_FIELDS = tuple(UsageRow.__struct_fields__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--since", help="first day, YYYY-MM-DD (UTC; default: 30 days ago)")
    parser.add_argument("--until", help="last day, YYYY-MM-DD (default: today)")
    parser.add_argument("--account", help="only this account's usage")
    parser.add_argument("--format", choices=("table", "csv", "json"), default="table")


def run(args: argparse.Namespace, settings: Settings) -> int:
    today = datetime.now(UTC).date()
    since = args.since or (today - timedelta(days=30)).isoformat()
    rows = asyncio.run(_rows(settings, since, args.until or today.isoformat(), args.account))
    if args.format == "json":
        sys.stdout.write(msgspec.json.encode(rows).decode() + "\n")
    elif args.format == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(_FIELDS)
        writer.writerows([getattr(row, name) for name in _FIELDS] for row in rows)
    else:
        _table(rows)
    return 0


async def _rows(settings: Settings, since: str, until: str, account: str | None) -> list[UsageRow]:
    databases = StoreDatabases.of(settings)
    try:
        database = await databases.migrated("accounts")
        return await UsageLedger(database).rows(since, until, account)
    finally:
        await databases.close()


def _table(rows: list[UsageRow]) -> None:
    shown = [
        [row.day, row.account[:16], row.key_id, row.route, f"{row.source_lang}>{row.target_lang}"]
        + [str(getattr(row, m)) for m in ("requests", "characters", "tokens", "documents")]
        for row in rows
    ]
    header = ["day", "account", "key", "route", "pair", "requests", "characters", "tokens", "docs"]
    widths = [max(len(r[i]) for r in [header, *shown]) for i in range(len(header))]
    for line in [header, *shown]:
        print("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)))
