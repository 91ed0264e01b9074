"""Memory of whole server process trees (the serving process, vLLM's engine core and its
workers), as PSS: each page shared between processes (libraries, a file mapped twice) counts
once in all, split among its sharers, so trees can be summed without counting a page twice.
RSS, which counts a shared page in every process, is kept beside it."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path

import psutil

GIB = 2**30


def parse_rollup(text: str) -> dict[str, int]:
    """`/proc/PID/smaps_rollup`'s kB fields, in bytes (`Pss`, `Rss`, ...)."""
    fields: dict[str, int] = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if len(parts) == 2 and parts[1] == "kB" and parts[0].isdigit():
            fields[key.strip()] = int(parts[0]) * 1024
    return fields


def tree_pids(pid: int) -> list[int]:
    try:
        root = psutil.Process(pid)
        return [pid, *(child.pid for child in root.children(recursive=True))]
    except psutil.Error:
        return []


def trees_memory(pids: Iterable[int]) -> dict[str, float]:
    """PSS and RSS (GiB) summed over every process of the trees rooted at `pids`."""
    pss = rss = processes = 0
    for root in pids:
        for pid in tree_pids(root):
            try:
                fields = parse_rollup(Path(f"/proc/{pid}/smaps_rollup").read_text())
            except OSError:  # exited since it was listed
                continue
            pss += fields.get("Pss", 0)
            rss += fields.get("Rss", 0)
            processes += 1
    return {"pss_gib": pss / GIB, "rss_gib": rss / GIB, "processes": processes}


class PeakSampler:
    """Samples `trees_memory` every `every_s` in a thread; `stop()` returns the sample with the
    highest PSS (the memory a machine must have for the run)."""

    def __init__(self, pids: list[int], every_s: float = 2.0) -> None:
        self.pids = pids
        self.every_s = every_s
        self.peak = trees_memory(pids)
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._done.wait(self.every_s):
            sample = trees_memory(self.pids)
            if sample["pss_gib"] > self.peak["pss_gib"]:
                self.peak = sample

    def stop(self) -> dict[str, float]:
        self._done.set()
        self._thread.join()
        sample = trees_memory(self.pids)
        return sample if sample["pss_gib"] > self.peak["pss_gib"] else self.peak
