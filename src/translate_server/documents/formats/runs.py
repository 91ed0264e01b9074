"""Office paragraphs: one segment per paragraph, its translation put back into the
paragraph's own text runs so that their formatting stays.

When every run with text has the same formatting, the first of them takes the whole
translation and the others are emptied (a paragraph split into runs by an editor's history,
not by its look). When formatting differs (a bold word, a link), the translation is spread
over the runs in proportion to their source lengths, cut between words: each style keeps
about its share of the text, though not necessarily the same words, since word order changes
between languages. An unchanged translation leaves the runs untouched.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from translate_server.documents.formats.base import Extracted
from translate_server.documents.formats.distribute import distribute


@dataclass
class TextRun:
    text: str
    style: Hashable  # equal for runs that look the same
    set_text: Callable[[str], None]


@dataclass
class RunGroup:
    runs: list[TextRun]

    @property
    def text(self) -> str:
        return "".join(run.text for run in self.runs)

    def fill(self, translation: str) -> None:
        if translation == self.text:
            return
        if len({run.style for run in self.runs}) == 1:
            parts = [translation] + [""] * (len(self.runs) - 1)
        else:
            parts = distribute(translation, [len(run.text) for run in self.runs])
        for run, part in zip(self.runs, parts, strict=True):
            if part != run.text:
                run.set_text(part)


class RunsExtracted(Extracted):
    """Paragraphs with text; `save` writes the edited document."""

    def __init__(self, groups: list[RunGroup], save: Callable[[], bytes]) -> None:
        self.groups = groups
        self.save = save
        self.segments = [group.text.strip() for group in groups]

    def rebuild(self, translations: Sequence[str]) -> bytes:
        self.check(translations)
        for group, source, translation in zip(
            self.groups, self.segments, translations, strict=True
        ):
            if translation != source:
                whole = group.text
                # The paragraph's own leading and trailing spaces stay where they were.
                lead = whole[: len(whole) - len(whole.lstrip())]
                trail = whole[len(whole.rstrip()) :]
                group.fill(lead + translation + trail)
        return self.save()
