"""`translate-server bench`: the shipped measurements, each a subcommand of its tool's: `run`
(loadgen: load sweeps against any server speaking this service's or OpenAI's API), `quality`
and `languages` (quality: translation quality on human translations, and which targets the
served model writes). The comparisons, `compare` and `http-layer`, live in the checkout's
`benchmarks/` and are not shipped."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from translate_server.loadgen import cli as loadgen
from translate_server.quality import cli as quality
from translate_server.quality import language_support


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="translate-server bench",
        description="Load generation and comparisons for translate-server.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    loadgen.add_parser(sub)
    for moved in ("compare", "http-layer"):
        # The comparisons need a source checkout (the FastAPI twin, vLLM's own server arm).
        sub.add_parser(
            moved,
            help=f"moved: `python -m benchmarks {moved}` in a source checkout",
            add_help=False,
        ).set_defaults(handler=_moved(moved))
    quality.add_parser(sub)
    language_support.add_parser(sub)
    return parser


def _moved(name: str) -> Callable[[argparse.Namespace], int]:
    def handler(args: argparse.Namespace) -> int:
        print(
            f"`bench {name}` is run from a source checkout: python -m benchmarks {name} ...",
            file=sys.stderr,
        )
        return 2

    return handler


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    return int(args.handler(args))


if __name__ == "__main__":  # python -m translate_server.bench
    raise SystemExit(main())
