"""Two runs of `translate-server bench quality` compared answer by answer: the translation,
its finish reason, warnings, quality estimate, review flag and (with `--quality-signals`) what
the estimate was made from. Everything but the time each request took.

    python -m benchmarks.same_answers BEFORE/answers.jsonl AFTER/answers.jsonl

Against a server around the engine double (`FAKE_SERVER_ANSWERS=mixed python -m
tests.support.fake_server PORT`, once with each checkout's `src` on `PYTHONPATH`), a change
that must not change what clients see is checked with every verdict of the quality guard.
Exits 1 where an answer differs, and prints the first few.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import msgspec

IGNORED = ("latency_s",)


def answers(path: Path) -> dict[tuple[str, str, str, str], dict[str, Any]]:
    found = {}
    for line in path.read_bytes().splitlines():
        record = msgspec.json.decode(line)
        for key in IGNORED:
            record.pop(key, None)
        found[(record["api"], record["set"], record["pair"], record["id"])] = record
    return found


def main(argv: list[str] | None = None) -> int:
    before_path, after_path = (Path(arg) for arg in (argv or sys.argv[1:]))
    before, after = answers(before_path), answers(after_path)
    differ = [key for key in before if before[key] != after.get(key)]
    missing = [key for key in after if key not in before]
    print(f"{len(before)} answers before, {len(after)} after: {len(differ)} differ")
    for key in differ[:5]:
        old, new = before[key], after.get(key) or {}
        fields = sorted(f for f in {*old, *new} if old.get(f) != new.get(f))
        print(f"  {' '.join(key)}: {', '.join(fields)}")
        for field in fields[:3]:
            print(f"    before {field}: {old.get(field)!r}\n    after  {field}: {new.get(field)!r}")
    return 1 if differ or missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
