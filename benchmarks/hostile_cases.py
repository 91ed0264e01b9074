"""`hostile_stall.py`'s cases: per kind of hostile input, the worst request that stays within
every limit the server enforces by default."""

from __future__ import annotations

import json
from collections.abc import Callable

from translate_server.settings import LimitSettings

from hostile_server import BLANK_RUN

LIMITS = LimitSettings()
MAX_CHARS, MAX_TEXTS, MAX_BODY = LIMITS.max_text_chars, LIMITS.max_texts, LIMITS.max_body_bytes


def _fill(unit: str, chars: int = MAX_CHARS) -> str:
    return (unit * (chars // len(unit) + 1))[:chars]


def _texts(make: Callable[[int], str], extra: dict | None = None) -> dict:
    """As many texts from `make(index)` as the body limit and --max-texts allow."""
    body: dict = {"text": [], "source_lang": "en", "target_lang": "de", **(extra or {})}
    budget = MAX_BODY - len(json.dumps(body)) - 64
    for index in range(MAX_TEXTS):
        text = make(index)
        if not text:
            break
        cost = len(json.dumps(text)) + 2
        if cost > budget:
            break
        body["text"].append(text)
        budget -= cost
    return body


def _html(make: Callable[[int], str]) -> dict:
    return _texts(make, {"format": "html"})


def _glossary() -> dict[str, str]:
    # 256 long terms that never occur, each compared against every piece.
    return {f"{i:03d}" + _fill("zq ", 196): "x" for i in range(256)}


CASES: dict[str, Callable[[], dict]] = {
    "baseline: one short text": lambda: _texts(lambda i: "Good morning." if i == 0 else ""),
    'html: unterminated attribute `<a b="`': lambda: _html(lambda i: _fill('<a b="')),
    "html: unterminated comments `<!--`": lambda: _html(lambda i: _fill("<!--")),
    "html: unterminated CDATA `<![CDATA[`": lambda: _html(lambda i: _fill("<![CDATA[")),
    "html: unterminated PI `<?`": lambda: _html(lambda i: _fill("<?")),
    "html: unterminated end tags `</a`": lambda: _html(lambda i: _fill("</a")),
    "html: unterminated declarations `<!x`": lambda: _html(lambda i: _fill("<!x")),
    "html: bare `<`": lambda: _html(lambda i: _fill("<")),
    "html: deep nesting, unmatched closers": lambda: _html(
        lambda i: "<b>" * 3000 + "x" + _fill("</i>", MAX_CHARS - 9001)
    ),
    "html: many unique text nodes": lambda: _html(
        lambda i: "".join(f"<b>{i}w{j}</b>" for j in range(MAX_CHARS))[:MAX_CHARS]
    ),
    "html: max-pieces unique text nodes": lambda: _html(
        lambda i: "".join(f"<b>w{j}</b>" for j in range(LIMITS.max_pieces)) if i == 0 else ""
    ),
    "plain: one long run of spaces": lambda: _texts(lambda i: "a" + " " * (MAX_CHARS - 2) + "b"),
    "plain: spaces and tabs, no line break": lambda: _texts(
        lambda i: "a" + _fill(" \t", MAX_CHARS - 2) + "b"
    ),
    "plain: many short sentences": lambda: _texts(lambda i: _fill(f"W{i}. ")),
    "glossary: 256 long terms, many pieces": lambda: _texts(
        lambda i: _fill(f"Word {i} and more. "), {"glossary": _glossary()}
    ),
    "glossary: 256 terms found in every piece": lambda: _texts(
        lambda i: _fill(" ".join(f"t{(j * 7 + i) % 256}x" for j in range(256)) + ". "),
        {"glossary": {f"t{j}x": f"T{j}Y" for j in range(256)}},
    ),
    "detection: auto on every text": lambda: _texts(
        lambda i: _fill("Die Besprechung wurde verschoben. "), {"source_lang": "auto"}
    ),
    "output: a run of blank lines": lambda: _texts(lambda i: f"{BLANK_RUN} {i}\nzweite Zeile"),
}
