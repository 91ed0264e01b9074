"""CPU time of a serving process (the "front": HTTP, tokenization, detokenization, streaming)
and of its whole process tree (plus the engine core and workers), over a measured window."""

from __future__ import annotations

import psutil


def _cpu_s(process: psutil.Process) -> float:
    times = process.cpu_times()
    return times.user + times.system


class CpuMeter:
    """Started on creation; `stop()` returns CPU seconds spent since, front and tree."""

    def __init__(self, process: psutil.Process) -> None:
        self.process = process
        self._front = _cpu_s(process)
        self._tree = self._tree_sample()

    @classmethod
    def of_pid(cls, pid: int | None) -> CpuMeter:
        return cls(psutil.Process(pid))

    def _tree_sample(self) -> dict[int, float]:
        samples = {self.process.pid: _cpu_s(self.process)}
        for child in self.process.children(recursive=True):
            try:
                samples[child.pid] = _cpu_s(child)
            except psutil.Error:  # exited between listing and reading
                continue
        return samples

    def stop(self) -> dict[str, float]:
        front = _cpu_s(self.process) - self._front
        end = self._tree_sample()
        # A process born during the window counts from zero; one that died is lost (rare: the
        # engine's processes live as long as the server).
        tree = sum(seconds - self._tree.get(pid, 0.0) for pid, seconds in end.items())
        return {"front_cpu_s": front, "tree_cpu_s": tree, "processes": len(end)}
