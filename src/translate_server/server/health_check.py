"""The container images' health check (their HEALTHCHECK): healthy while `/health` answers 200.

Docker's health check only reports; it restarts nothing, and neither does Compose (a restart
policy acts when the container exits). So where `/health/live` answers 503 `engine_failing`, an
engine up but failing every request, this check also ends the server: SIGTERM to PID 1, the
server itself or, under Compose's `init: true`, Docker's init, which passes it on. The server
drains and exits, and `restart: unless-stopped` starts it afresh. A server that is draining, or
whose database is away, is only reported unhealthy; one whose engine died exits by itself.

    python3 -m translate_server.server.health_check

Standard library only, and nothing else of the package: it runs every 15 s beside the server.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import urllib.error
import urllib.request

# Each of the (at most) two requests; the image's HEALTHCHECK allows 5 s in all.
TIMEOUT = 2.0
FAILING = "engine_failing"


def main(port: str | None = None) -> int:
    base = f"http://127.0.0.1:{port or os.environ.get('TRANSLATE_PORT', '8000')}"
    status, _ = _get(base + "/health")
    if status == 200:
        return 0
    status, code = _get(base + "/health/live")
    if status == 503 and code == FAILING:
        print("the engine fails every request: ending the server to restart it", file=sys.stderr)
        os.kill(1, signal.SIGTERM)
    return 1


def _get(url: str) -> tuple[int | None, str | None]:
    """The answer's status and error code; (None, None) where nothing answered."""
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            return response.status, None
    except urllib.error.HTTPError as error:
        with error:
            return error.code, _code(error.read())
    except OSError:
        return None, None


def _code(body: bytes) -> str | None:
    try:
        found = json.loads(body)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None
    return found if isinstance(found, str) else None


if __name__ == "__main__":
    sys.exit(main())
