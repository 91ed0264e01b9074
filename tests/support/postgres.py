"""A throwaway PostgreSQL cluster for tests and benchmarks: Debian's server binaries, a data
folder in a temporary folder, listening on a Unix socket only (no port to collide with), fsync
off (nothing in it outlives the run). `initdb` refuses to run as root: as root, the cluster
runs as the `postgres` user, which the package creates.

Where a step cannot be taken (no binaries, no such user, initdb or the start failing),
`Unavailable` names the step, so a test can skip saying why.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

INSTALL_HINT = "apt-get install postgresql"


class Unavailable(Exception):
    """PostgreSQL cannot be started here; the message names the step that failed."""


@dataclass(frozen=True)
class Cluster:
    folder: Path  # the data folder, also the socket's
    binaries: Path
    as_user: tuple[str, ...]  # the prefix that runs the server's tools as their user

    def start(self) -> None:
        options = f"-k {self.folder} -c listen_addresses='' -c fsync=off -c synchronous_commit=off"
        _step(
            "pg_ctl start",
            [
                *self.as_user,
                str(self.binaries / "pg_ctl"),
                "-D",
                str(self.folder),
                "-o",
                options,
                "-w",
                "-l",
                str(self.folder / "server.log"),
                "start",
            ],
        )

    def stop(self, mode: str = "immediate") -> None:
        """Stopped; `immediate` loses the last commits (fsync is off): a test that starts it
        again stops it `fast`."""
        subprocess.run(
            [
                *self.as_user,
                str(self.binaries / "pg_ctl"),
                "-D",
                str(self.folder),
                "-m",
                mode,
                "stop",
            ],
            capture_output=True,
            check=False,
        )

    def url(self, database: str = "postgres", password: str | None = None) -> str:
        secret = f":{password}" if password else ""
        return f"postgresql://postgres{secret}@/{database}?host={self.folder}"

    def psql(self, sql: str, database: str = "postgres") -> str:
        done = subprocess.run(
            [
                "psql",
                "-X",
                "-q",
                "-A",
                "-t",
                "-h",
                str(self.folder),
                "-U",
                "postgres",
                "-d",
                database,
                "-c",
                sql,
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    def new_database(self) -> str:
        """A fresh, empty database's URL."""
        name = "t_" + uuid.uuid4().hex[:12]
        self.psql(f"CREATE DATABASE {name}")
        return self.url(name)


def _binaries() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb is None:
        raise Unavailable(f"PostgreSQL's initdb was not found ({INSTALL_HINT})")
    return Path(initdb).parent


def _as_user() -> list[str]:
    """The command prefix that runs the server's tools as a user they accept."""
    if os.geteuid() != 0:
        return []
    try:
        subprocess.run(["id", "postgres"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        raise Unavailable(
            f"running as root and there is no `postgres` user ({INSTALL_HINT})"
        ) from None
    return ["runuser", "-u", "postgres", "--"]


def _step(name: str, command: list[str]) -> None:
    try:
        subprocess.run(command, capture_output=True, text=True, check=True, timeout=120)
    except subprocess.CalledProcessError as failed:
        raise Unavailable(
            f"{name} failed: {(failed.stderr or failed.stdout).strip()[-500:]}"
        ) from None
    except (OSError, subprocess.TimeoutExpired) as failed:
        raise Unavailable(f"{name} failed: {failed}") from None


@contextlib.contextmanager
def throwaway_cluster() -> Iterator[Cluster]:
    """A running cluster, stopped and deleted on exit. Raises Unavailable."""
    binaries, prefix = _binaries(), _as_user()
    folder = Path(tempfile.mkdtemp(prefix="pg-"))
    if prefix:
        shutil.chown(folder, "postgres", "postgres")
    try:
        _step(
            "initdb",
            [
                *prefix,
                str(binaries / "initdb"),
                "-D",
                str(folder),
                "-A",
                "trust",
                "-U",
                "postgres",
                "--no-sync",
                "-E",
                "UTF8",
                "--locale=C",
            ],
        )
        cluster = Cluster(folder, binaries, tuple(prefix))
        cluster.start()
        try:
            yield cluster
        finally:
            cluster.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
