"""Spans a translation must carry over unchanged, hidden from the model behind mask tokens and
put back exactly afterwards.

Protected: placeholders (printf, Python, brace fields, ICU arguments, an ICU plural or select
kept whole; see placeholders.py), URLs, e-mail addresses, inline code in backticks and, in
plain text, HTML entities (`&amp;`, `&#160;`).

Each span becomes a numbered token (`{1}`, `{2}`, ...) that small models copy through a
translation far more reliably than `%(count)d` or a URL (docs/quality.md has the measurement).
Restoring puts each span back once: a token the model repeated is dropped after its first
use, one it made up (`{7}` of two spans) is dropped, a token the model lost is reported
(`Unmasked.lost`) so that the caller can retry, or append the span and warn.
"""

from __future__ import annotations

import re

import msgspec

from translate_server.text.placeholders import find_placeholders

_OTHER_SPANS = re.compile(
    r"(?P<code>`[^`\n]{1,200}`)"
    r"|(?P<url>\b(?:https?|ftp)://[^\s<>\"'`]+[^\s<>\"'`.,;:!?)\]}])"
    r"|(?P<email>\b[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}\b)"
    r"|(?P<entity>&(?:[A-Za-z][A-Za-z0-9]{1,31}|#\d{1,7}|#[xX][0-9A-Fa-f]{1,6});)"
)
# What every one of those spans holds (a backtick, `://`, `@`, `&`): a quick scan first.
_MAY_HOLD_SPAN = re.compile(r"[`@&]|://")
# Token styles: how span 3 is written, and what a model may make of it (spaces inside,
# braces doubled, the tag's case or slash changed). `brace` is the default (measured).
STYLES: dict[str, tuple[str, re.Pattern[str]]] = {
    "brace": ("{%d}", re.compile(r"\{\{?\s*(\d{1,3})\s*\}\}?")),
    "xml": ("<x%d/>", re.compile(r"<\s*[xX]\s*(\d{1,3})\s*/?\s*>(?:</\s*[xX]\d{0,3}\s*>)?")),
}
DEFAULT_STYLE = "brace"
_DROPPED = "\x00"


class Masked(msgspec.Struct, frozen=True):
    text: str  # what the model sees
    spans: tuple[str, ...]  # span i is token `{i + 1}`
    style: str = DEFAULT_STYLE

    def unmask(self, answer: str) -> Unmasked:
        return unmask(self, answer)


class Unmasked(msgspec.Struct, frozen=True):
    text: str
    lost: tuple[str, ...]  # spans whose token the answer did not have, in source order


def protected_spans(text: str, *, entities: bool = True) -> list[tuple[int, int]]:
    """(start, end) of every protected span of `text`, in order, none overlapping."""
    found = [(p.start, p.end) for p in find_placeholders(text)]
    if _MAY_HOLD_SPAN.search(text):  # most texts have none: the scan below is slow
        found.extend(
            match.span()
            for match in _OTHER_SPANS.finditer(text)
            if entities or match.lastgroup != "entity"
        )
    found.sort()
    spans: list[tuple[int, int]] = []
    for start, end in found:
        if spans and start < spans[-1][1]:
            continue  # inside one already taken (a `{name}` in a URL, a `%s` in code)
        spans.append((start, end))
    return spans


def mask(text: str, *, entities: bool = True, style: str = DEFAULT_STYLE) -> Masked:
    """`text` with every protected span replaced by its token. A text that already holds a
    token of its own gets no masking: its tokens could not be told apart."""
    spans = protected_spans(text, entities=entities)
    token, pattern = STYLES[style]
    if not spans or pattern.search(_without(text, spans)):
        return Masked(text, (), style)
    parts, taken, last = [], [], 0
    for start, end in spans:
        parts.append(text[last:start])
        taken.append(text[start:end])
        parts.append(token % len(taken))
        last = end
    parts.append(text[last:])
    return Masked("".join(parts), tuple(taken), style)


def unmask(masked: Masked, answer: str) -> Unmasked:
    if not masked.spans:
        return Unmasked(answer, ())
    used: set[int] = set()

    def restore(match: re.Match[str]) -> str:
        number = int(match.group(1))
        if number in used or not 1 <= number <= len(masked.spans):
            # A repeated token (each span comes back once), or one the model made up: the
            # source had no such text, every brace field of it being masked.
            return _DROPPED
        used.add(number)
        return masked.spans[number - 1]

    text = STYLES[masked.style][1].sub(restore, answer)
    if _DROPPED in text:
        text = re.sub(" ?" + _DROPPED, "", text)
    lost = tuple(span for i, span in enumerate(masked.spans, 1) if i not in used)
    return Unmasked(text, lost)


def _without(text: str, spans: list[tuple[int, int]]) -> str:
    out, last = [], 0
    for start, end in spans:
        out.append(text[last:start])
        out.append(" ")
        last = end
    out.append(text[last:])
    return "".join(out)
