"""`translate-server`: argv and environment in, a running server (or a tool) out. No logic here."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from translate_server import __version__
from translate_server.server.process_tree import tie_to_parent_if_spawned
from translate_server.settings import OPTIONS, Option, Settings, SettingsError, load_settings

# The options that say where the stores are, which `db` takes.
STORE_OPTIONS = ("model_cache_dir", "glossary_db", "memory_db", "document_dir", "database_url")

# A process the server spawns (vLLM's engine core and worker) imports this module first, as
# its parent's main module: the earliest moment to make it die with its parent.
tie_to_parent_if_spawned()


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "bench":
        from translate_server.bench import main as bench_main

        return bench_main(argv[1:])
    if argv and argv[0] == "adapt":
        from translate_server.adapt.cli import main as adapt_main

        return adapt_main(argv[1:])
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        settings = load_settings(vars(args))
    except SettingsError as exc:
        parser.error(str(exc))
    if args.command == "serve":
        from translate_server.server.serve import serve

        return serve(settings)
    if args.command == "doctor":
        from translate_server.server.doctor import run as run_doctor

        return run_doctor(settings)
    if args.command == "openapi":
        print(openapi_document(settings))
        return 0
    if args.command == "db":
        from translate_server.storage.commands import run as run_db

        return run_db(args, settings)
    if args.command in ("keys", "accounts"):
        from translate_server.accounts.commands import run as run_accounts

        return run_accounts(args, settings)
    if args.command == "usage":
        from translate_server.admin.usage_command import run as run_usage

        return run_usage(args, settings)
    if args.command == "prepare-model":
        from translate_server.inference.model_files import resolve_model

        print(resolve_model(settings.engine))
        return 0
    parser.error(f"unknown command {args.command}")


def openapi_document(settings: Settings | None = None) -> str:
    """The OpenAPI document the app serves, as committed in openapi/openapi.json."""
    from translate_server.app import create_app

    def no_engine() -> None:
        raise RuntimeError("the OpenAPI document needs no engine")

    # A factory that never builds one: the document is read from the routes alone.
    app = create_app(settings or Settings(), no_engine)  # type: ignore[arg-type]
    return json.dumps(app.openapi_schema.to_schema(), indent=2, sort_keys=True) + "\n"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="translate-server",
        description="A translation API and an OpenAI-compatible API over one vLLM engine.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    serve = commands.add_parser(
        "serve",
        help="run the HTTP server",
        description="Serve /translate and /v1/chat/completions. Every option can also be set "
        "through its environment variable; a flag wins over the variable.",
    )
    for option in OPTIONS:
        _add_option(serve, option)
    prepare = commands.add_parser(
        "prepare-model", help="prepare the configured model offline and print its path"
    )
    for option in OPTIONS:
        if option.name in ("model", "model_cache_dir"):
            _add_option(prepare, option)
    _add_doctor(commands)
    commands.add_parser("openapi", help="print the OpenAPI document")
    db = commands.add_parser(
        "db",
        help="the stores' database: upgrade, current, copy (see `db --help`)",
        description="The database of the memories, DeepL accounts and document jobs: one "
        "PostgreSQL database (--database-url) or an SQLite file each.",
    )
    for option in OPTIONS:
        if option.name in STORE_OPTIONS:
            _add_option(db, option)
    _add_db_commands(db)
    _add_account_commands(commands)
    _add_usage_command(commands)
    commands.add_parser(
        "adapt",
        help="train a LoRA adapter on your translations (see `adapt --help`)",
        add_help=False,
    )
    commands.add_parser(
        "bench", help="load generator and translation quality (see `bench --help`)", add_help=False
    )
    return parser


def _add_doctor(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from translate_server.server.doctor import OPTIONS as READ

    doctor = commands.add_parser(
        "doctor",
        help="check that `serve` can start here, naming what is missing",
        description="One line per prerequisite of `serve` (Python, compiler, Python's headers, "
        "libnuma, the engine and its CPU or GPU, memory and disk for the model, the port, the "
        "model's files); exits 1 when one is missing, naming the command that installs it.",
    )
    for option in OPTIONS:
        if option.name in READ:
            _add_option(doctor, option)


def _add_db_commands(parser: argparse.ArgumentParser) -> None:
    from translate_server.storage.commands import add_commands

    add_commands(parser)


def _add_account_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from translate_server.accounts.commands import add_commands

    keys = commands.add_parser(
        "keys",
        help="API keys: create, list, revoke, rotate, set-limits (see `keys --help`)",
        description="API keys in the stores' database; every replica sees a change within "
        "a second. A key is printed once, when it is made.",
    )
    accounts = commands.add_parser(
        "accounts",
        help="accounts: create, list, set-limits (see `accounts --help`)",
        description="The accounts that own keys, stored things and usage.",
    )

    def where(parser: argparse.ArgumentParser) -> None:
        for option in OPTIONS:
            if option.name in STORE_OPTIONS:
                _add_option(parser, option)

    add_commands(keys, accounts, where)


def _add_usage_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from translate_server.admin.usage_command import add_arguments

    usage = commands.add_parser(
        "usage",
        help="usage per account, key, day, route and language pair (see `usage --help`)",
        description="What was used, as the replicas flushed it to the stores' database.",
    )
    for option in OPTIONS:
        if option.name in STORE_OPTIONS:
            _add_option(usage, option)
    add_arguments(usage)


def _add_option(parser: argparse.ArgumentParser, option: Option) -> None:
    default = option.default
    shown = "" if default in (None, ()) else f" (default: {default})"
    help_text = f"{option.help}{shown} [env {option.env}]"
    # Defaults stay None here, so that an unset flag lets the environment decide.
    if option.kind is bool:
        parser.add_argument(
            option.flag, action=argparse.BooleanOptionalAction, default=None, help=help_text
        )
    elif option.repeatable:
        parser.add_argument(
            option.flag, action="append", default=None, help=help_text, metavar=option.name.upper()
        )
    else:
        parser.add_argument(
            option.flag,
            type=option.kind,
            choices=option.choices,
            default=None,
            help=help_text,
            metavar=None if option.choices else option.name.upper(),
        )


if __name__ == "__main__":
    sys.exit(main())
