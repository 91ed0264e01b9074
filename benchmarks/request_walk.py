"""The walk of one request through the package: which modules it stays in, and how often a call
climbs against the dependency diagram.

    python benchmarks/request_walk.py [--checkout PATH] [--path /translate]

One `/translate` (or another JSON route) is sent to the app, in this process, over the engine
double of the checkout's own tests (`tests.support.fakes.FakeEngine`), with a profiler hook that
sees every Python call and return of `translate_server`'s modules. It prints:

- rooms: the modules of `translate_server` the request ran code in;
- stays: the times the running code moved from one module into another (a call into, or a
  return back to, another module), counted from the route handler's first line until the
  answer is written (coroutines resumed and suspended count as calls and returns);
- calls: every Python function call made in that time, in any module (the library's too): a
  count that machine load does not blur, beside the timed benchmarks;
- climbs: the calls from a module into one of a package that is not below its own in the
  layers of this checkout's pyproject.toml import contract (`layers`): a domain calling a
  sibling domain, or a lower package calling a higher one. Modules of packages the layers do
  not name (an older checkout's) count under their top-level package.

`--checkout` measures another checkout (an older commit's worktree) with the SAME layers, so
that two walks are compared against one diagram.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import tomllib
from pathlib import Path
from types import FrameType
from typing import Any

HERE = Path(__file__).resolve().parents[1]
BODY = {"text": "Open the settings. Then save your work.", "source_lang": "en", "target_lang": "de"}


def layer_ranks(pyproject: Path) -> dict[str, int]:
    """Top-level package -> its layer's position (0 is the top)."""
    config = tomllib.loads(pyproject.read_text())["tool"]["importlinter"]
    (layers,) = [c for c in config["contracts"] if c["id"] == "layers"]
    return {
        name.strip(): rank
        for rank, layer in enumerate(layers["layers"])
        for name in layer.split("|")
    }


def package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


class Walk:
    def __init__(self, ranks: dict[str, int]) -> None:
        self.ranks = ranks
        self.rooms: set[str] = set()
        self.stays = 0
        self.calls = 0
        self.climbs: list[tuple[str, str]] = []
        self.recording = False
        self._where: str | None = None

    def hook(self, frame: FrameType, event: str, arg: Any) -> None:
        if event not in ("call", "return"):
            return
        module = frame.f_globals.get("__name__", "")
        if event == "call" and frame.f_code.co_name == "translate" and module.endswith("routes"):
            self.recording = True
        if not self.recording:
            return
        self.calls += event == "call"
        here = module if module.startswith("translate_server") else None
        if event == "return" and frame.f_back is not None:
            caller = frame.f_back.f_globals.get("__name__", "")
            here = caller if caller.startswith("translate_server") else None
        if here is None or here == self._where:
            return
        if event == "call" and self._where is not None:
            self._count_climb(self._where, here)
        self.rooms.add(here)
        self.stays += 1
        self._where = here

    def _count_climb(self, caller: str, callee: str) -> None:
        above, below = package_of(caller), package_of(callee)
        if above == below:
            return
        rank_caller = self.ranks.get(above)
        rank_callee = self.ranks.get(below)
        if rank_caller is None or rank_callee is None or rank_callee <= rank_caller:
            self.climbs.append((caller, callee))


async def walk_once(path: str, ranks: dict[str, int]) -> Walk:
    from translate_server.app import create_app
    from translate_server.settings import load_settings

    from tests.support.fakes import FakeEngine
    from tests.support.harness import running

    # Stores of its own, in a folder that goes with the run: never the user's files.
    folder = tempfile.TemporaryDirectory()
    overrides = {
        "memory_db": f"{folder.name}/memories.sqlite3",
        "glossary_db": f"{folder.name}/glossaries.sqlite3",
        "document_dir": f"{folder.name}/documents",
    }
    settings = load_settings({"served_model_name": "fake-model", **overrides}, environ={})
    engine = FakeEngine()
    async with running(create_app(settings, lambda: engine)) as client:
        warm = await client.post(path, json={**BODY, "text": "Warm up."})
        assert warm.status_code == 200, warm.text
        walk = Walk(ranks)
        sys.setprofile(walk.hook)
        try:
            answer = await client.post(path, json=BODY)
        finally:
            sys.setprofile(None)
        assert answer.status_code == 200, answer.text
    folder.cleanup()
    return walk


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, default=HERE, help="the checkout to walk")
    parser.add_argument("--path", default="/translate")
    args = parser.parse_args(argv)
    ranks = layer_ranks(HERE / "pyproject.toml")
    checkout = args.checkout.resolve()
    sys.path[:0] = [str(checkout / "src"), str(checkout)]
    walk = asyncio.run(walk_once(args.path, ranks))
    print(f"checkout: {checkout}")
    print(f"rooms (modules): {len(walk.rooms)}")
    print(f"stays (moves between modules): {walk.stays}")
    print(f"calls (any module): {walk.calls}")
    print(f"climbs against the layers: {len(walk.climbs)}")
    for caller, callee in sorted(set(walk.climbs)):
        print(f"  {caller} -> {callee}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
