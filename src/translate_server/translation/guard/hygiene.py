"""Output hygiene: the model's answer becomes the translation alone. Whatever a small model
wraps around it (a "Here is the translation:" preamble, quotes the source did not have, a
trailing note, echoed fence tags) is removed, in whole answers and in streams alike.
"""

from __future__ import annotations

import re
from functools import lru_cache

import regex

from translate_server.translation.prompts.templates import CLOSE_MARKER, OPEN_MARKER

# "Here is the translation:", "Sure! Here's the German translation of the text:",
# "Translation:", "German translation:", "Translated text:" ... at the very start. Words
# before a bare "translation" must be the request's language names or a few adjectives, so
# that a translation's own first words ("Die Besprechung", "The city") are told apart after
# a token or two. `regex` rather than `re` for its partial matches: a stream can tell when
# its start can no longer become a preamble.
_QUALIFIERS = (
    "final",
    "literal",
    "direct",
    "formal",
    "informal",
    "full",
    "complete",
    "requested",
    "corrected",
    "suggested",
    "possible",
    "accurate",
    "natural",
)


@lru_cache(maxsize=256)
def _preamble(languages: tuple[str, ...]) -> regex.Pattern[str]:
    names = {name.lower() for name in languages}
    names |= {name.split()[0] for name in names if name.split()}
    words = "|".join(
        regex.escape(word) for word in sorted(names | set(_QUALIFIERS), key=len, reverse=True)
    )
    return regex.compile(
        r"^(?:(?:sure|certainly|of course|okay|ok)[,.!]?\s+)?"
        r"(?:here(?:'s|’s| is| are)\s+(?:the|your|my|a)\s+(?:[\w()-]+\s+){0,3}?translations?"
        rf"|(?:the\s+)?(?:(?:{words})\s+){{0,2}}?translations?|translated(?:\s+text)?)"
        r"(?:\s+(?:of|in|into|to|from)\s+[^:\n]{0,48})?\s*:[ \t]*\n?",
        regex.IGNORECASE,
    )


# Lines holding nothing but a made-up tag ("<text>", "<translation>"), which small models
# open their answer with, echoing the `<source>` fence of the prompt: two at most. An answer
# that goes on with tag after tag is degenerate, and holding a stream back until such an
# answer ends would leave its client waiting for the whole generation.
_TAG_LINES = regex.compile(r"^(?:<[A-Za-z][\w-]*>[ \t]*\n\s*){1,2}")
_QUOTES = {
    '"': '"',
    "“": "”",
    "„": "“",
    "«": "»",
    "»": "«",
    "「": "」",
    "『": "』",
    "'": "'",
    "‘": "’",
    "‚": "‘",
}
_CLOSING_QUOTES = frozenset(_QUOTES.values())
# A note on a line of its own after the translation ("Note: ...", "(Translator's note: ...").
# Tried only at line starts and never across lines: a pattern that let whitespace (blank lines)
# come before and inside the note was tried from every line break of a run of blank lines and
# backtracked through the rest of the run twice over, cubic in a degenerate answer.
_TRAILING_NOTE = re.compile(
    r"(?<=\n)[ \t]*\(?[ \t]*(?:note|notes|translator'?s note|explanation)[ \t]*:",
    re.IGNORECASE,
)


def clean_translation(
    output: str, source: str, *, languages: tuple[str, ...] = (), final: bool = True
) -> str:
    """The translation alone, whatever the model's habits: no markers, surrounding whitespace,
    opening tag lines ("<text>"), preamble ("Here is the translation:"), wrapping quotes or
    trailing notes the source does not have; for a one-line source only the first line of the
    answer.

    `languages` are the names of the request's languages, which a preamble may mention;
    `final=False` cleans a partial answer (streaming): its end may still change.
    """
    source = source.strip()
    cleaned = output.replace(OPEN_MARKER, "").replace(CLOSE_MARKER, "").strip()
    # The checks before each pattern are what it needs to match (a tag line starts with "<",
    # every preamble ends in a colon): a stream cleans its answer again for every delta, and
    # most answers have neither.
    if cleaned.startswith("<") and not source.startswith("<"):
        cleaned = _TAG_LINES.sub("", cleaned, count=1)
    if ":" in cleaned:
        preamble = _preamble(languages)
        if ":" not in source or not preamble.match(source):
            cleaned = preamble.sub("", cleaned, count=1).lstrip()
    if "\n" not in source:
        cleaned = cleaned.split("\n", 1)[0].rstrip()
    elif final and not re.search(r"\bnote", source, re.IGNORECASE):
        if note := _TRAILING_NOTE.search(cleaned):
            cleaned = cleaned[: note.start()]
        cleaned = cleaned.rstrip()
    if final:
        cleaned = _without_cut_marker(cleaned, source)
    opening = cleaned[:1]
    if opening in _QUOTES and source[:1] not in _QUOTES:
        cleaned = cleaned[1:].lstrip()
        closing = _QUOTES[opening]
        if final and cleaned.endswith(closing) and source[-1:] not in _CLOSING_QUOTES:
            cleaned = cleaned[:-1].rstrip()
    return cleaned


def _without_cut_marker(text: str, source: str) -> str:
    """An answer cut off by `max_tokens` in the middle of a marker ("... <sour") ends before it."""
    for marker in (OPEN_MARKER, CLOSE_MARKER):
        for length in range(len(marker) - 1, 1, -1):
            fragment = marker[:length]
            if text.endswith(fragment):
                return text if source.endswith(fragment) else text[:-length].rstrip()
    return text


# The last `<` of an answer, when nothing after it ends a tag. Not `<[^>\s]*$`: from every
# `<` of "<a<a<a ... x" that one ran to the next blank and back, quadratic per delta.
_ARRIVING_MARKER = re.compile(r"<[^<>\s]*\Z")


class StreamCleaner:
    """`clean_translation` applied to an answer as it streams: each `feed` returns the text
    that is safe to send, `finish` the rest. What the end of the answer could still change
    (trailing whitespace, a closing quote, a half-received marker) is held back, and so is the
    start until a preamble can be told apart from the translation."""

    WINDOW = 120  # characters after which an answer's start is no longer a preamble

    def __init__(self, source: str, languages: tuple[str, ...] = ()) -> None:
        self.source = source
        self.languages = languages
        self._preamble = _preamble(languages)
        self._strips_tags = not source.lstrip().startswith("<")
        self._multiline = "\n" in source.strip()
        self.raw = ""
        self.sent = ""
        self.whole = ""
        self._started = False  # once ruled out, a preamble cannot come back: longer text
        # never matches a pattern that its beginning already failed

    def feed(self, delta: str) -> str:
        self.raw += delta
        if not self._started:
            start = self.raw.replace(OPEN_MARKER, "").replace(CLOSE_MARKER, "").lstrip()
            if self._strips_tags:
                start = _TAG_LINES.sub("", start, count=1)
            if _may_be_preamble(start, self.WINDOW, self._preamble):
                return ""
            self._started = True
        stable = self.raw
        if "<" in stable:
            stable = _ARRIVING_MARKER.sub("", stable)  # a marker may be arriving
        candidate = clean_translation(
            stable, self.source, languages=self.languages, final=False
        ).rstrip()
        if candidate[-1:] in _CLOSING_QUOTES:
            candidate = candidate[:-1]
        if self._multiline:
            # A trailing note could be starting on the last line.
            candidate = candidate.rsplit("\n", 1)[0].rstrip() if "\n" in candidate else ""
        return self._advance(candidate)

    def finish(self) -> str:
        """The rest; `whole` is then what `clean_translation` makes of the whole answer, which
        `sent` can differ from where a stream let through what the end showed to be noise."""
        self.whole = clean_translation(self.raw, self.source, languages=self.languages)
        return self._advance(self.whole)

    def _advance(self, text: str) -> str:
        if len(text) <= len(self.sent) or not text.startswith(self.sent):
            return ""
        new, self.sent = text[len(self.sent) :], text
        return new


_TAG_LINE = regex.compile(r"<[A-Za-z][\w-]*>[ \t]*\n")


def _may_be_preamble(start: str, window: int, preamble: regex.Pattern[str]) -> bool:
    """Whether the start of an answer (opening tag lines removed) could still turn out to be
    a preamble or an opening tag line: the text is held back exactly that long."""
    if len(start) >= window:
        return False
    if (tag := _TAG_LINE.match(start, partial=True)) is not None and tag.partial:
        return True
    match = preamble.match(start, partial=True)
    return match is not None and match.partial
