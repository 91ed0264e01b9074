"""Subtitles: cues are grouped into sentences, each sentence is translated whole, and its
translation is spread back over the same cues.

A sentence runs over consecutive cues until one ends with sentence punctuation, the next one
starts after a pause, or the group grows long. Its translation is cut between words in
proportion to each cue's share of the source text, so every cue keeps its number, its
timings and some text: none is left empty, none is merged into another. A cue of several
lines is cut into as many lines again, in proportion to its lines' lengths.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from translate_server.documents.formats.base import Extracted
from translate_server.documents.formats.distribute import distribute

# A pause longer than this between two cues ends a sentence even without punctuation.
MAX_GAP_SECONDS = 2.0
# Cues per sentence at most: a long run without punctuation (song lyrics, live captions)
# still becomes requests of a reasonable size.
MAX_CUES = 6

_TAG = re.compile(r"<[^>]*>|\{\\[^}]*\}")  # HTML-like cue tags and SSA overrides ({\an8})
_SENTENCE_END = re.compile(r"[.!?…。！？♪][\"'”’»)\]]*$")
# A new speaker (a WebVTT voice span, or a dialogue dash) starts a new sentence.
_NEW_SPEAKER = re.compile(r"^(?:<v[\s.][^>]*>|-\s)")


@dataclass
class Cue:
    lines: list[str]
    start: float  # seconds
    end: float

    @property
    def text(self) -> str:
        return " ".join(line.strip() for line in self.lines if line.strip())


def sentences(cues: Sequence[Cue]) -> list[list[int]]:
    """Indexes of the cues that hold text, grouped into sentences."""
    groups: list[list[int]] = []
    current: list[int] = []
    for index, cue in enumerate(cues):
        if not cue.text:
            continue
        if current and _ends_group(cues[current[-1]], cue, len(current)):
            groups.append(current)
            current = []
        current.append(index)
    if current:
        groups.append(current)
    return groups


def _ends_group(previous: Cue, cue: Cue, size: int) -> bool:
    spoken = _TAG.sub("", previous.text).rstrip()
    return (
        bool(_SENTENCE_END.search(spoken))
        or bool(_NEW_SPEAKER.match(cue.text))
        or cue.start - previous.end > MAX_GAP_SECONDS
        or size >= MAX_CUES
    )


class SubtitleExtracted(Extracted):
    """One segment per sentence; `write` turns the cues' new lines into the file."""

    def __init__(self, cues: list[Cue], write: Callable[[list[list[str]]], bytes]) -> None:
        self.cues = cues
        self.write = write
        self.groups = sentences(cues)
        self.segments = [" ".join(cues[i].text for i in group) for group in self.groups]

    def rebuild(self, translations: Sequence[str]) -> bytes:
        self.check(translations)
        lines = [list(cue.lines) for cue in self.cues]
        for group, source, translation in zip(
            self.groups, self.segments, translations, strict=True
        ):
            if translation == source:
                continue
            translation = " ".join(translation.split()) or source
            # Each cue's share counts the space that joined it to the next one.
            shares = [len(self.cues[i].text) + 1 for i in group]
            for index, part in zip(group, distribute(translation, shares), strict=True):
                lines[index] = _lines(part.strip(), self.cues[index].lines)
        return self.write(lines)


def _lines(text: str, original: list[str]) -> list[str]:
    kept = [line.strip() for line in original if line.strip()]
    count = min(len(kept), len(text.split()))
    if count <= 1:
        return [text]
    return [part.strip() for part in distribute(text, [len(line) + 1 for line in kept][:count])]
