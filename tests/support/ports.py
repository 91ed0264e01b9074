"""Loopback ports for servers started as subprocesses, which bind their port only later."""

from __future__ import annotations

import os
import random
import socket
from pathlib import Path

# Below the kernel's ephemeral range, so no outgoing connection is handed the port meanwhile.
_LOWEST = 20000


def free_port() -> int:
    """A free loopback port, chosen outside the kernel's ephemeral range. A port the kernel
    picked for a bind to port 0 is free again once that socket closes, and the kernel hands
    it to the next outgoing connection that wants one: a server that loads a model for a
    minute before it binds then finds its port taken (seen: `address already in use`)."""
    low, high = _range()
    if high > low + 1000:
        for _ in range(200):
            port = random.randrange(low, high)
            with socket.socket() as sock:
                try:
                    sock.bind(("127.0.0.1", port))
                except OSError:
                    continue
                return port
    with socket.socket() as sock:  # an unusual range: the kernel's choice, as before
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _range() -> tuple[int, int]:
    """Ours below the kernel's ephemeral range; where test processes run side by side
    (tests/lanes.py), the share of it that `TRANSLATE_TEST_PORTS` (`LOW-HIGH`) gives this one,
    so that two of them never pick the same port for servers that bind it later."""
    low, high = _LOWEST, _ephemeral_low()
    given = os.environ.get("TRANSLATE_TEST_PORTS", "")
    if given:
        first, _, last = given.partition("-")
        low, high = max(low, int(first)), min(high, int(last))
    return low, high


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default
