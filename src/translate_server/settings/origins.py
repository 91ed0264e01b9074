"""`--cors-origins`: an origin as browsers send it in their `Origin` header."""

from __future__ import annotations

from urllib.parse import urlsplit

ANY = "*"


def normalized_origin(origin: str) -> str:
    """`https://App.example.com/` -> `https://app.example.com`; `*` stays. ValueError for
    anything but a scheme and a host with an optional port: an origin has no path, and a
    browser never sends one, so a page URL here would silently match nothing."""
    origin = origin.strip()
    if origin == ANY:
        return origin
    parts = urlsplit(origin.removesuffix("/"))
    if (
        parts.scheme not in ("http", "https")
        or not parts.netloc
        or "@" in parts.netloc
        or parts.path
        or parts.query
        or parts.fragment
    ):
        raise ValueError(
            f"not an origin: {origin!r} (write scheme://host[:port], e.g. "
            "https://app.example.com, or * for any)"
        )
    return f"{parts.scheme}://{parts.netloc.lower()}"
