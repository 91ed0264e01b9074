"""`translate-server keys ...` and `translate-server accounts ...`: accounts and their API keys
made, listed, limited, rotated and revoked in the stores' database, as `/admin/...` does over
HTTP. A key is printed once, when it is made (alone on stdout, for scripts); only its digest
is stored. Every replica sees a change within about a second, without a restart."""

from __future__ import annotations

import argparse
import asyncio
import datetime
import getpass
import re
import socket
from collections.abc import Callable, Coroutine
from typing import Any

import msgspec

from translate_server.accounts import scopes
from translate_server.accounts.records import Account, Actor, KeyRecord, NewKey
from translate_server.accounts.store import AccountStore
from translate_server.errors import ApiError, StorageUnavailableError
from translate_server.limits.policy import Limits
from translate_server.settings import Settings
from translate_server.storage.opening import StoreDatabases

LIMIT_FIELDS = msgspec.structs.fields(Limits)
_DURATION = re.compile(r"^(\d+)([smhdw])$")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}


def add_commands(
    keys: argparse.ArgumentParser,
    accounts: argparse.ArgumentParser,
    where: Callable[[argparse.ArgumentParser], None],
) -> None:
    """The two groups' own commands, each with the options that say where the stores are
    (`where` adds them)."""
    found = keys.add_subparsers(dest="keys_command", metavar="KEYS_COMMAND", required=True)
    create = found.add_parser("create", help="make a key and print it (shown this once)")
    create.add_argument("--account", required=True, help="the account's name")
    create.add_argument("--name", default="", help="what the key is for (e.g. ci, web)")
    create.add_argument(
        "--scope",
        action="append",
        choices=sorted(scopes.ALL),
        help="a scope it has (repeatable); default: every scope but admin",
    )
    create.add_argument(
        "--expires", type=moment, help="when it stops working: 2027-01-31, or 30d, 12h"
    )
    _add_limits(create)
    listed = found.add_parser("list", help="every key: prefix, name, account, scopes, limits")
    listed.add_argument("--account", help="only this account's")
    revoke = found.add_parser("revoke", help="refuse a key from now on (final)")
    revoke.add_argument("key", help="the key, its id or its prefix (ts_...)")
    rotate = found.add_parser("rotate", help="a new key in place of one, printed once")
    rotate.add_argument("key", help="the key, its id or its prefix (ts_...)")
    rotate.add_argument(
        "--grace", type=duration, default=86_400, help="how long the old key keeps working "
        "(e.g. 1h, 7d; default 1d)"
    )  # fmt: skip
    limit = found.add_parser("set-limits", help="change a key's limits")
    limit.add_argument("key", help="the key, its id or its prefix (ts_...)")
    _add_limits(limit)

    group = accounts.add_subparsers(
        dest="accounts_command", metavar="ACCOUNTS_COMMAND", required=True
    )
    made = group.add_parser("create", help="a new account")
    made.add_argument("name")
    _add_limits(made)
    group.add_parser("list", help="every account and its limits")
    changed = group.add_parser("set-limits", help="change an account's limits")
    changed.add_argument("name")
    _add_limits(changed)
    for commands in (found, group):
        for parser in commands.choices.values():
            where(parser)


def _add_limits(parser: argparse.ArgumentParser) -> None:
    for field in LIMIT_FIELDS:
        parser.add_argument(
            "--" + field.name.replace("_", "-"),
            type=limit_value,
            metavar="N",
            help="`none` removes it",
        )


def run(args: argparse.Namespace, settings: Settings) -> int:
    command = f"{args.command} {getattr(args, 'keys_command', None) or args.accounts_command}"
    try:
        return asyncio.run(_with_store(settings, lambda store: _run(args, store)))
    except (StorageUnavailableError, ApiError) as failed:
        print(f"translate-server {command}: {getattr(failed, 'message', failed)}", flush=True)
        return 1


async def _with_store(
    settings: Settings, work: Callable[[AccountStore], Coroutine[Any, Any, int]]
) -> int:
    databases = StoreDatabases.of(settings)
    try:
        return await work(AccountStore(await databases.migrated("accounts")))
    finally:
        await databases.close()


async def _run(args: argparse.Namespace, store: AccountStore) -> int:
    actor = Actor(who=f"cli:{getpass.getuser()}", origin=socket.gethostname())
    if args.command == "accounts":
        if args.accounts_command == "list":
            for account in await store.accounts():
                _print_account(account)
        elif args.accounts_command == "create":
            _print_account(await store.create_account(actor, args.name, _limits(args)))
        else:
            before = (await store.account(args.name)).limits
            _print_account(await store.set_account_limits(actor, args.name, _limits(args, before)))
        return 0
    command = args.keys_command
    if command == "list":
        for record in await store.keys(args.account):
            _print_key(record)
    elif command == "create":
        made = await store.create_key(
            actor,
            args.account,
            name=args.name,
            scopes=scopes.parsed(args.scope or ()),
            limits=_limits(args),
            expires=args.expires,
        )
        _print_new(made)
    elif command == "rotate":
        _print_new(await store.rotate_key(actor, args.key, args.grace))
    elif command == "revoke":
        _print_key(await store.revoke_key(actor, args.key))
    else:
        limits = _limits(args, (await store.key(args.key)).limits)
        _print_key(await store.set_key_limits(actor, args.key, limits))
    return 0


def _limits(args: argparse.Namespace, before: Limits | None = None) -> Limits:
    """The limits the flags give, over `before`'s (a flag not given leaves one as it was)."""
    values = msgspec.structs.asdict(before) if before is not None else {}
    for field in LIMIT_FIELDS:
        given = getattr(args, field.name)
        if given is not None:
            values[field.name] = None if given == "none" else given
    return Limits(**values)


def _print_new(made: NewKey) -> None:
    print(made.key, flush=True)
    _print_key(made.record, prefix="# ")


def _print_key(key: KeyRecord, prefix: str = "") -> None:
    print(
        f"{prefix}{key.prefix}  name={key.name or '-'}  account={key.account}  "
        f"scopes={','.join(key.scopes)}  limits={_shown(key.limits)}  "
        f"created={_when(key.created)}  expires={_when(key.expires)}  "
        f"last_used={_when(key.last_used)}  status={key.status}",
        flush=True,
    )


def _print_account(account: Account) -> None:
    print(
        f"{account.name}  id={account.account_id}  limits={_shown(account.limits)}  "
        f"created={_when(account.created)}",
        flush=True,
    )


def _shown(limits: Limits) -> str:
    given = msgspec.structs.asdict(limits)
    return ",".join(f"{name}={value}" for name, value in given.items() if value is not None) or "-"


def _when(at: int | None) -> str:
    if at is None:
        return "-"
    return datetime.datetime.fromtimestamp(at, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def limit_value(text: str) -> int | str:
    if text.lower() == "none":
        return "none"
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("a limit is 0 or more, or `none`")
    return value


def duration(text: str) -> int:
    """Seconds, from `90`, `90s`, `15m`, `12h`, `7d` or `2w`."""
    if text.isdigit():
        return int(text)
    found = _DURATION.match(text)
    if found is None:
        raise argparse.ArgumentTypeError(f"{text!r}: a duration is like 90s, 15m, 12h, 7d or 2w")
    return int(found.group(1)) * _SECONDS[found.group(2)]


def moment(text: str) -> int:
    """Unix seconds, from a date or time (UTC where it names no zone) or a duration from now."""
    try:
        return int(datetime.datetime.now(datetime.UTC).timestamp()) + duration(text)
    except argparse.ArgumentTypeError:
        pass
    try:
        when = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give a date (2027-01-31) or 30d") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.UTC)
    return int(when.timestamp())
