"""Placeholders in message text: the spans a translation must carry over unchanged.

Kinds found: printf (`%s`, `%1$s`, `%.2f`, `%d`, `%%`), Python named (`%(name)s`), brace
fields (`{name}`, `{0}`, `{}`, `{name!r:>8}`, `{{name}}` of i18next and Jinja) and ICU MessageFormat
arguments (`{count}`, and `{count, plural, one {...} other {...}}` kept whole: its inner
text is translated, so it compares by its argument name and type only).

Deliberately not placeholders: a space after `%` ("50 % de"), because the printf space flag
is rare and "%" before a word is common in prose; `{{`/`}}` escapes with nothing between.
"""

from __future__ import annotations

from collections import Counter
from enum import StrEnum

import msgspec
import regex


class PlaceholderKind(StrEnum):
    PRINTF = "printf"
    PYTHON = "python"
    BRACE = "brace"
    ICU = "icu"


class Placeholder(msgspec.Struct, frozen=True):
    kind: PlaceholderKind
    text: str  # as written in the text
    start: int
    end: int

    @property
    def key(self) -> str:
        """What must match between source and translation."""
        if self.kind is PlaceholderKind.ICU:
            name, kind = (part.strip() for part in self.text[1:].split(",")[:2])
            return f"{{{name}, {kind}}}"
        return self.text


_CONVERSIONS = "diouxXeEfFgGcrsa"
# One alternation, so the leftmost match wins and a span is never counted twice.
_PATTERN = regex.compile(
    r"""
    (?P<icu>\{\s*[A-Za-z_]\w*\s*,\s*(?:plural|select|selectordinal)\s*,
        (?P<body>(?:[^{}]|\{(?&body)\})*)\})
    | (?P<python>%\([^()\s]{1,64}\)[-+#0]*\d*(?:\.\d+)?["""
    + _CONVERSIONS
    + r"""])
    | (?P<printf>%(?:\d+\$)?[-+#0']*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|z|j|t|q)?
        ["""
    + _CONVERSIONS
    + r"""@]|%%)
    | (?P<brace>\{\{\s*[A-Za-z_][\w.]*\s*\}\}
        | \{(?:[A-Za-z_][\w.]*|\d+)?(?:\[[\w]+\])?(?:![rsa])?(?::[^{}\s]{0,16})?\})
    """,
    regex.VERBOSE,
)


def find_placeholders(text: str) -> list[Placeholder]:
    """Every placeholder in `text`, in order."""
    if "%" not in text and "{" not in text:
        return []  # every kind starts with one of them; most texts have neither
    found = []
    for match in _PATTERN.finditer(text):
        kind = next(
            PlaceholderKind(name)
            for name in ("icu", "python", "printf", "brace")
            if match.group(name) is not None
        )
        found.append(Placeholder(kind, match.group(), match.start(), match.end()))
    return found


def placeholder_keys(text: str) -> Counter[str]:
    """The placeholders of `text` as a multiset of comparison keys."""
    return Counter(placeholder.key for placeholder in find_placeholders(text))


def lost_placeholders(source: str, translation: str) -> list[str]:
    """Placeholders of `source` that `translation` has fewer of (each as often as missing),
    in the order of the source."""
    missing = placeholder_keys(source) - placeholder_keys(translation)
    lost = []
    for placeholder in find_placeholders(source):
        if missing[placeholder.key] > 0:
            missing[placeholder.key] -= 1
            lost.append(placeholder.key)
    return lost


def strip_placeholders(text: str) -> str:
    """`text` without its placeholders (for language detection, which they would confuse)."""
    if "%" not in text and "{" not in text:
        return text
    return _PATTERN.sub(" ", text)
