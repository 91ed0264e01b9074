"""Ten replicas starting at once migrate once: `translate-server db upgrade` run by ten
processes together over one database (PostgreSQL: an advisory lock; SQLite: a lock on each
file). Each store is upgraded by exactly one of them; the others wait, then find it at head."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from translate_server.storage.migrate import head

from tests.support.stores import own_stores

REPLICAS = 10


def _flag(option: str) -> str:
    return "--" + option.replace("_", "-")


async def _upgrade(options: list[str]) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "translate_server.cli",
        "db",
        *options,
        "upgrade",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    output, _ = await process.communicate()
    return process.returncode or 0, output.decode()


async def test_ten_replicas_starting_at_once_migrate_once(
    backend: str, database_location: str, tmp_path: Path
) -> None:
    if backend == "postgresql":
        options = ["--database-url", database_location]
    else:
        # Every store named: the run's default ones (tests/conftest.py) may exist already.
        stores = own_stores(tmp_path)
        options = [item for name, path in stores.items() for item in (_flag(name), path)]
    async with asyncio.timeout(240):
        done = await asyncio.gather(*(_upgrade(options) for _ in range(REPLICAS)))
    assert [code for code, _ in done] == [0] * REPLICAS, done
    lines = [line for _, output in done for line in output.splitlines()]
    for store in ("memory", "accounts", "jobs"):
        ours = [line for line in lines if line.startswith(f"{store}: ")]
        assert len(ours) == REPLICAS, lines
        upgraded = [line for line in ours if f"upgraded None -> {head(store)}" in line]
        assert len(upgraded) == 1, ours
        assert sum(f"at head ({head(store)})" in line for line in ours) == REPLICAS - 1
