"""Translator doubles for document tests: each turns a list of segments into translations."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from translate_server.documents.formats import FormatOptions, detect_format, extract

_TAG = re.compile(r"(<[^>]*>|`[^`]*`|%\(?\w*\)?[sd]|\{[^}]*\})")

Rewrite = Callable[[str], str]


def shout(text: str) -> str:
    """Upper-cases words, never tags, code spans or placeholders: only text changes."""
    return "".join(part if _TAG.fullmatch(part) else part.upper() for part in _TAG.split(text))


def reverse_words(text: str) -> str:
    """Word order reversed on each line: a translation whose words move around."""
    return "\n".join(" ".join(reversed(line.split(" "))) for line in text.split("\n"))


def translate_file(name: str, data: bytes, rewrite: Rewrite | None = None,
                   **options: object) -> tuple[list[str], bytes]:
    """The file's segments and the file rebuilt from their rewritten versions."""
    extracted = extract(detect_format(name, data), data, FormatOptions(**options))
    translations = [rewrite(s) if rewrite else s for s in extracted.segments]
    return extracted.segments, extracted.rebuild(translations)


@pytest.fixture
def rewrite_shout() -> Rewrite:
    return shout
