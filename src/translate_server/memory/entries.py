"""What a memory holds and how its sources are compared: one entry is a source, its
translation, their languages and an optional note. Sources are compared with their protected
spans masked (placeholders, URLs, code: masking.py) and their whitespace collapsed, so
`Delete %(count)d files?` matches `Delete {n} files?` exactly, and the match's translation gets
the piece's own spans back."""

from __future__ import annotations

import re
from functools import lru_cache

import msgspec

from translate_server.text.languages import UnknownLanguageError, resolve_language
from translate_server.text.masking import Masked, mask

_SPACE = re.compile(r"\s+")


class Entry(msgspec.Struct, frozen=True):
    source: str
    target: str
    source_lang: str  # BCP-47 tags as the file or the request gave them, normalized
    target_lang: str
    note: str | None = None


class Found(msgspec.Struct, frozen=True):
    """A piece's best match: `exact` (its translation, the piece's spans put back) or fuzzy;
    `examples` are (source, target) pairs at or above the threshold, the best last."""

    exact: str | None
    score: float
    examples: tuple[tuple[str, str], ...] = ()


def match_key(text: str) -> str:
    """What two sources must share to be an exact match: the text with its protected spans
    masked and its whitespace collapsed."""
    return collapse(mask(text).text)


def collapse(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


@lru_cache(maxsize=1024)
def language_key(tag: str) -> str:
    """The language a memory keys entries by: the tag without its region (`pt-BR` -> `pt`),
    its script kept (`zh-Hant`), lower-cased. Raises UnknownLanguageError."""
    parts = resolve_language(tag).tag.split("-")
    kept = [parts[0]] + [p for p in parts[1:] if len(p) == 4 and p.isalpha()]
    return "-".join(kept).lower()


@lru_cache(maxsize=1024)
def normalized_tag(tag: str) -> str:
    """`tag` as BCP-47 (`pt_br` -> `pt-BR`); raises UnknownLanguageError."""
    return resolve_language(tag).tag


def carry_spans(source: str, target: str, into: str) -> str:
    """`target` (the translation of `source`) as the translation of `into`, a text that
    differs from `source` only in its protected spans: each span of `source` found in
    `target` is replaced by the span of `into` in the same place."""
    theirs, ours = mask(source), mask(into)
    if not theirs.spans or len(theirs.spans) != len(ours.spans):
        return target
    return _replace_spans(target, theirs, ours)


def _replace_spans(target: str, theirs: Masked, ours: Masked) -> str:
    out, position = [], 0
    for old, new in zip(theirs.spans, ours.spans, strict=True):
        found = target.find(old, position)
        if found < 0:
            continue
        out.append(target[position:found])
        out.append(new)
        position = found + len(old)
    out.append(target[position:])
    return "".join(out)


__all__ = [
    "Entry",
    "Found",
    "UnknownLanguageError",
    "carry_spans",
    "collapse",
    "language_key",
    "match_key",
    "normalized_tag",
]
