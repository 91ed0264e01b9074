"""`python -m benchmarks compare|http-layer|ceiling|api-processes|adapters|limit-checks ...` from
the root."""

from __future__ import annotations

import argparse
import sys

from benchmarks import adapters, api_processes, ceiling, compare, http_layer, limit_checks


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    sub = parser.add_subparsers(dest="command", required=True)
    compare.add_parser(sub)
    http_layer.add_parser(sub)
    ceiling.add_parser(sub)
    api_processes.add_parser(sub)
    adapters.add_parser(sub)
    limit_checks.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    return int(args.handler(args))


if __name__ == "__main__":
    raise SystemExit(main())
