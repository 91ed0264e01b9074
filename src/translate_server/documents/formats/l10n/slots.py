"""The machinery every localization format shares: a file is its text with slots, spans of
that text holding translatable values; each slot gives its segments (with the context the
model is told: a key's description, a plural form's category) and writes its span back from
their translations. Everything between slots comes back byte for byte.

Placeholders of the formats' own kinds (printf with positions, Apple's `%@` and
`%#@name@`, Symfony's `%name%`, Qt's `%1`, `$1`, `{name}`, `{{name}}`, ICU arguments, i18next's
`$t(key)`) are put back where a translation changed them, as for PO (`protect.restore`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from translate_server.documents.formats.base import Extracted, SegmentReview
from translate_server.documents.formats.protect import restore

PLACEHOLDER = re.compile(
    r"%[A-Za-z_]\w+%"  # Symfony's
    r"|%#@\w+@"
    r"|%(?:\d+\$)?[-+#0 ']*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|z|j|t|q)?"
    r"[diouxXeEfFgGcrsaAp@]"
    r"|%%"
    r"|\{\{[^{}]{1,64}\}\}"
    r"|\{\s*\w+\s*(?:,[^{}]{0,64})?\}"
    r"|\$t\([^()]{1,128}\)"
    r"|\$(?:\d+|[A-Za-z_]\w*)"  # MediaWiki's `$1`, Flutter's `$name`
    r"|%L?\d{1,2}|%n"  # Qt's arguments and count
)

# write(translations of the slot's segments, whether any needs review) -> the span's new text
Write = Callable[[Sequence[str], bool], str]


def keep_placeholders(source: str, translation: str) -> str:
    """The translation with the source's placeholders back where the translator changed them."""
    return restore(translation, PLACEHOLDER, [m.group() for m in PLACEHOLDER.finditer(source)])


@dataclass
class Slot:
    """A span of the file (`start`..`end` of its text) rewritten from its segments'
    translations. A slot with no segments still writes (a locale key renamed)."""

    start: int
    end: int
    sources: list[str]
    contexts: list[str | None]
    write: Write


@dataclass
class Parts:
    """A value's segments and how their translations make the value again."""

    sources: list[str]
    contexts: list[str | None]
    assemble: Callable[[Sequence[str]], str]


def single(source: str, context: str | None = None) -> Parts:
    return Parts([source], [context], lambda found: keep_placeholders(source, found[0]))


def slot(start: int, end: int, parts: Parts, encode: Callable[[str], str]) -> Slot:
    """A slot whose span is one value: the parts' translation, encoded as the format writes it."""
    return Slot(
        start, end, parts.sources, parts.contexts, lambda found, _: encode(parts.assemble(found))
    )


@dataclass
class SlotsExtracted(Extracted):
    """A localization file as text and slots; `encode` turns the rebuilt text into bytes."""

    text: str
    slots: list[Slot]
    encode: Callable[[str], bytes]
    known: list[tuple[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.slots.sort(key=lambda s: s.start)
        # Where each slot's text landed in the last file rebuilt (start, end), slot by slot.
        self.written: list[tuple[int, int]] = []
        self.segments = [source for s in self.slots for source in s.sources]
        self.contexts = [context for s in self.slots for context in s.contexts]

    def rebuild(self, translations: Sequence[str]) -> bytes:
        """Every translation taken as needing review (nothing says which to trust)."""
        return self.rebuild_reviewed(translations, [SegmentReview(None, True)] * len(translations))

    def rebuild_reviewed(
        self, translations: Sequence[str], reviews: Sequence[SegmentReview]
    ) -> bytes:
        self.check(translations)
        out: list[str] = []
        at = taken = length = 0
        self.written = []
        for s in self.slots:
            count = len(s.sources)
            flagged = any(review.needs_review for review in reviews[taken : taken + count])
            between = self.text[at : s.start]
            written = s.write(translations[taken : taken + count], flagged)
            out += (between, written)
            length += len(between)
            self.written.append((length, length + len(written)))
            length += len(written)
            at, taken = s.end, taken + count
        out.append(self.text[at:])
        return self.encode("".join(out))
