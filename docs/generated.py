"""The generated parts of these docs, rewritten from the code: `make docs`.

Each part sits between `<!-- generated: NAME (make docs) -->` and
`<!-- end of generated: NAME -->`; tests/unit/docs fail when one is stale.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

from translate_server.error_codes import error_table
from translate_server.settings import configuration_table

DOCS = Path(__file__).resolve().parent
PARTS: dict[str, dict[str, Callable[[], str]]] = {
    "configuration.md": {"settings": configuration_table},
    "api.md": {"error codes": error_table},
}


def rewrite(text: str, name: str, content: str) -> str:
    pattern = re.compile(
        rf"(<!-- generated: {re.escape(name)} \(make docs\) -->\n).*?"
        rf"(<!-- end of generated: {re.escape(name)} -->)",
        re.DOTALL,
    )
    if not pattern.search(text):
        raise SystemExit(f"no generated part named {name!r}")
    return pattern.sub(lambda match: f"{match[1]}{content}\n{match[2]}", text)


def main() -> int:
    for page, parts in PARTS.items():
        path = DOCS / page
        text = path.read_text()
        for name, generate in parts.items():
            text = rewrite(text, name, generate())
        path.write_text(text)
        print(f"{path.relative_to(DOCS.parent)}: {', '.join(parts)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
