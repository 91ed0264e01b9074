"""`make test`'s tiers but the docker tier, as three pytest processes side by side ("lanes").

Why lanes: the engine, server and browser tiers mostly wait (for an engine to start, a server
to drain, a page to load), so one of them keeps under one core busy on average, while the unit
and integration tiers keep exactly one busy. One pytest process running them all in turn left
a 2-core machine half idle; three at once fill it. Each lane is a whole pytest run of its own
folders, with its own temporary directory, its own range of ports (so servers that two lanes
start at the same moment never pick the same port) and its own log, `.test-lanes/LANE/`.

    python -m tests.lanes [pytest arguments for every lane, e.g. -x or -k memory]

The run ends with each lane's outcome and time, the tail of any lane that failed, and each
lane's "skipped tiers" summary; it fails when any lane fails.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / ".test-lanes"

# Balanced by the tiers' measured times (docs/development.md): the engine tier alone; the tiers
# that start real servers, clusters and browsers; the in-process tiers. The longest first.
LANES: dict[str, tuple[str, ...]] = {
    "engine": ("tests/engine",),
    "servers": ("tests/scale", "tests/process", "tests/browser", "tests/postgres", "tests/soak"),
    "fast": ("tests/unit", "tests/integration", "tests/deploy", "benchmarks/tests"),
}
# Ports for servers started as subprocesses, split between the lanes (tests/support/ports.py).
PORTS_VARIABLE = "TRANSLATE_TEST_PORTS"
PORTS = (20000, 32000)
HEARTBEAT_S = 60.0
FAILED_LINES = 600
_PROGRESS = re.compile(r"\[\s*(\d+)%\]")


@dataclass
class Lane:
    name: str
    folders: tuple[str, ...]
    ports: tuple[int, int]
    process: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    seconds: float = 0.0
    status: int | None = None
    log: Path = field(init=False)

    def __post_init__(self) -> None:
        self.log = OUT / self.name / "pytest.log"

    def start(self, pytest_args: list[str]) -> None:
        folder = OUT / self.name
        folder.mkdir(parents=True, exist_ok=True)
        command = [
            sys.executable, "-m", "pytest", "-ra", "-m", "not docker",
            "-p", "no:cacheprovider", f"--basetemp={folder / 'tmp'}",
            f"--junitxml={folder / 'junit.xml'}", "--durations=10",
            *self.folders, *pytest_args,
        ]  # fmt: skip
        environ = {**os.environ, PORTS_VARIABLE: f"{self.ports[0]}-{self.ports[1]}"}
        with self.log.open("wb") as log:
            # A session of its own: an interrupted run stops each lane's servers with it.
            self.process = subprocess.Popen(
                command, cwd=ROOT, env=environ, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        self.started = time.monotonic()

    def poll(self) -> bool:
        """True once the lane has ended."""
        if self.status is None and self.process is not None:
            self.status = self.process.poll()
            if self.status is not None:
                self.seconds = time.monotonic() - self.started
        return self.status is not None

    def progress(self) -> str:
        if self.status is not None:
            return (
                f"{self.name} {'passed' if self.status == 0 else 'FAILED'} ({self.seconds:.0f} s)"
            )
        found = _PROGRESS.findall(_tail(self.log, 4000))
        return f"{self.name} {found[-1] if found else 0}%"

    def interrupt(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGINT)


def lanes() -> list[Lane]:
    low, high = PORTS
    width = (high - low) // len(LANES)
    return [
        Lane(name, folders, (low + i * width, low + (i + 1) * width))
        for i, (name, folders) in enumerate(LANES.items())
    ]


def run(pytest_args: list[str]) -> int:
    running = lanes()
    began = time.monotonic()
    for lane in running:
        lane.start(pytest_args)
        print(f"lane {lane.name}: {' '.join(lane.folders)} (log: {lane.log.relative_to(ROOT)})")
    sys.stdout.flush()
    try:
        next_beat = began + HEARTBEAT_S
        while not _all_ended(running):
            time.sleep(1.0)
            if time.monotonic() >= next_beat:
                next_beat += HEARTBEAT_S
                minutes = (time.monotonic() - began) / 60
                print(f"{minutes:.0f} min: " + ", ".join(lane.progress() for lane in running))
                sys.stdout.flush()
    except KeyboardInterrupt:
        for lane in running:
            lane.interrupt()
        for lane in running:
            if lane.process is not None:
                lane.process.wait()
        raise
    return report(running, time.monotonic() - began)


def _all_ended(running: list[Lane]) -> bool:
    # Every lane polled each time (no short cut at the first still running): each one's end
    # is timed when it comes.
    ended = [lane.poll() for lane in running]
    return all(ended)


def report(ended: list[Lane], seconds: float) -> int:
    for lane in ended:
        text = _tail(lane.log, 200_000)
        if lane.status != 0:
            print(f"\n{'=' * 30} lane {lane.name} failed: the end of {lane.log.name} {'=' * 30}")
            print(_from_summary(text))
        skipped = text.find("skipped tiers: a prerequisite is missing")
        if skipped >= 0:
            print(f"\nlane {lane.name}: " + text[skipped:].split("\n=", 1)[0])
    print(f"\n{'=' * 30} lanes {'=' * 30}")
    for lane in ended:
        finals = [line for line in _tail(lane.log, 2000).splitlines() if line.startswith("=")]
        outcome = finals[-1].strip("= ") if finals else "no summary"
        print(f"{lane.name:8} exit {lane.status}  {lane.seconds:6.0f} s  {outcome}")
    print(f"all lanes: {seconds:.0f} s")
    return next((lane.status or 1 for lane in ended if lane.status != 0), 0)


def _from_summary(text: str) -> str:
    """From pytest's failures (their tracebacks) or errors to the end, or else the log's last
    lines; at most `FAILED_LINES` lines either way."""
    for heading in ("= FAILURES =", "= ERRORS =", "short test summary info"):
        start = text.find(heading)
        if start >= 0:
            text = text[text.rfind("\n", 0, start) + 1 :]
            break
    return "\n".join(text.splitlines()[-FAILED_LINES:])


def _tail(path: Path, size: int) -> str:
    try:
        with path.open("rb") as log:
            log.seek(max(0, log.seek(0, os.SEEK_END) - size))
            return log.read().decode("utf-8", "replace")
    except OSError:
        return ""


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
