"""Loopback ports for servers started as subprocesses, which bind their port only later."""

from __future__ import annotations

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
    ephemeral_low = _ephemeral_low()
    if ephemeral_low > _LOWEST + 1000:
        for _ in range(200):
            port = random.randrange(_LOWEST, ephemeral_low)
            with socket.socket() as sock:
                try:
                    sock.bind(("127.0.0.1", port))
                except OSError:
                    continue
                return port
    with socket.socket() as sock:  # an unusual range: the kernel's choice, as before
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default
