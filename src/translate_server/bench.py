"""`translate-server bench`: the shipped measurements, each a subcommand of its tool's: `run`
(loadgen: load sweeps against any server speaking this service's or OpenAI's API), `quality`
and `languages` (quality: translation quality on human translations, and which targets the
served model writes), `estimate` and `estimate-eval` (a file's translations scored, and the
estimate's AUC against damaged references), `write` (DeepL Write's rewrites, before and after
its guard). The comparisons (`python -m benchmarks compare | http-layer | ceiling`) live in
the checkout's `benchmarks/` and are not shipped."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from translate_server.loadgen import cli as loadgen
from translate_server.quality import cli as quality
from translate_server.quality import estimate_bench, language_support, write_bench


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="translate-server bench",
        description="Load generation and translation quality for translate-server (and any "
        "OpenAI-compatible server).",
        # Not shipped: they need vLLM's own server and a FastAPI twin.
        epilog="The side-by-side comparisons with the engine alone and vLLM's own server run "
        "from a source checkout: python -m benchmarks compare | http-layer | ceiling "
        "(docs/benchmarking.md).",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    loadgen.add_parser(sub)
    quality.add_parser(sub)
    language_support.add_parser(sub)
    estimate_bench.add_parsers(sub)
    write_bench.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    return int(args.handler(args))


if __name__ == "__main__":  # python -m translate_server.bench
    raise SystemExit(main())
