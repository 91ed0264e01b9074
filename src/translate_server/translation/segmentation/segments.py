"""Long texts become pieces that each fit one engine request, and translations go back into
the original layout: every blank line, line break and space between pieces is kept verbatim.

The text's structure never depends on what the model writes: a plain text's pieces never
span a line break (every line break and blank line stays in the layout, however short the
lines), and a translation's own line breaks are folded into spaces as it goes into a piece
that had none. A model that merges, drops or invents lines changes words, never lines.

Splitting prefers the largest boundary that works: paragraphs, then lines, then sentences,
then clauses, then words; only a single "word" longer than a piece is cut blindly. A model
that loses text in pieces of several sentences gets at most a few sentences per piece
(`split_sentences`, sized per model family in templates.toml).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

import msgspec

# A sentence ends at . ! ? or … (with its closing quotes or brackets) before whitespace, or at
# a CJK full stop, exclamation or question mark (whitespace after it optional).
_SENTENCE_END = re.compile(
    r"(?P<latin>[.!?…][\"'”’»)\]]*)(?P<space>\s+)|[。！？][」』”’)）]*(?P<cjk>\s*)"
)
# A full stop after these is an abbreviation, not a sentence's end, when a capital follows
# ("Dr. Smith", "e.g. Paris"). "etc." is left out: it ends sentences as often as not.
_ABBREVIATIONS = frozenset(
    {
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "st",
        "sr",
        "jr",
        "vs",
        "cf",
        "e.g",
        "i.e",
        "no",
        "nr",
        "fig",
        "approx",
        "inc",
        "ltd",
        "co",
        "corp",
        "dept",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "mt",
        "vol",
        "ed",
        "eds",
        "p",
        "pp",
        "z.b",
        "bzw",
        "usw",
        "ca",
        "bsp",
        "env",
        "éd",
        "sra",
        "dña",
        "etc.,",
    }
)
_WORD_BEFORE = re.compile(r"(\S+)$")


def sentence_boundaries(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each separator between two sentences of `text` (the whitespace after a
    sentence's end, or nothing after a CJK full stop). An abbreviation's full stop, a full stop
    before a lower-case letter or a digit, and the end of the text are no boundary."""
    for match in _SENTENCE_END.finditer(text):
        if match.group("cjk") is not None:
            start = match.start("cjk")
            end = match.end("cjk")
        else:
            start, end = match.start("space"), match.end("space")
            if end >= len(text) or not _opens_sentence(text[end]):
                continue
            if match.group("latin")[0] == "." and _is_abbreviation(text, match.start()):
                continue
        if end < len(text) and start > 0:
            yield start, end


def _opens_sentence(char: str) -> bool:
    return not (char.islower() or char.isdigit())


def _is_abbreviation(text: str, full_stop: int) -> bool:
    found = _WORD_BEFORE.search(text, max(0, full_stop - 12), full_stop)
    if found is None:
        return False
    word = found.group(1).lstrip("(\"'“‘«[").casefold()
    # A lone letter is an initial ("J. Smith"); "U.S" and "e.g" are letters with full stops.
    return (
        (len(word) == 1 and word.isalpha())
        or word in _ABBREVIATIONS
        or bool(re.fullmatch(r"(?:\w\.)+\w", word))
    )


class _Boundary:
    """The separators of one size in a text, as (start, end) spans."""

    def __init__(self, spans: Callable[[str], Iterator[tuple[int, int]]]) -> None:
        self.spans = spans


def _pattern(pattern: str) -> _Boundary:
    compiled = re.compile(pattern)
    return _Boundary(lambda text: (m.span() for m in compiled.finditer(text)))


# Separators, largest boundary first. A separator is never translated: it stays as it was.
_BOUNDARIES = (
    _pattern(r"\n[ \t]*\n\s*"),  # blank line(s): paragraphs
    # Line breaks (any of str.splitlines'). Only from the start of a run of blanks: tried from
    # inside one, the pattern would rescan the rest of the run at every position (quadratic on
    # a long run of spaces).
    _pattern(r"(?<![ \t])[ \t]*[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]\s*"),
    _Boundary(sentence_boundaries),  # sentences
    _pattern(r"(?<=[,;:，、；])\s*"),  # clauses
    _pattern(r"\s+"),  # words
)
# The boundaries above that are line breaks: blank lines, then lines.
_LINE_LEVELS = 2


class Document(msgspec.Struct):
    """Pieces to translate and the layout that puts their translations back.

    `layout` holds literal text (kept as is) and indexes into `pieces`; `escape` is applied to
    each translation as it goes in (HTML text nodes need their `<` and `&` escaped);
    `originals`, where given, are the pieces as the source spelled them (HTML entities): a
    translation that is its piece unchanged goes back as it was written.
    """

    pieces: list[str]
    layout: list[str | int]
    escape: Callable[[str], str] | None = None
    originals: list[str] | None = None

    def assemble(self, translations: Sequence[str]) -> str:
        return "".join(
            part if isinstance(part, str) else self.render(part, translations[part])
            for part in self.layout
        )

    def render(self, index: int, translation: str) -> str:
        """The translation of piece `index` as it goes into the document."""
        piece = self.pieces[index]
        if self.originals is not None and translation == piece:
            return self.originals[index]
        if not _LINE_BREAK_CHAR.search(piece):
            translation = fold_line_breaks(translation)
        if self.escape is None:
            return translation
        # Whitespace that only entities spell (`&nbsp;Price`) is the piece's own: an answer
        # is always stripped, so it is put back.
        lead, trail = piece[: len(piece) - len(piece.lstrip())], piece[len(piece.rstrip()) :]
        return self.escape(lead + translation.strip() + trail)


# Any line break (str.splitlines' boundaries), and one with the blanks around it.
_LINE_BREAK_CHAR = re.compile(r"[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_FOLDED_BREAK = re.compile(r"[ \t]*[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]\s*")


def fold_line_breaks(translation: str) -> str:
    """`translation` with its line breaks (and the blanks around them) folded into one space:
    what goes in place of a piece that had none."""
    if not _LINE_BREAK_CHAR.search(translation):
        return translation
    return _FOLDED_BREAK.sub(" ", translation.strip())


def split_document(text: str, max_chars: int) -> Document:
    """`text` as pieces of at most `max_chars` characters (where boundaries allow), each with
    its surrounding whitespace left in the layout; no piece spans a line break."""
    pieces: list[str] = []
    layout: list[str | int] = []
    for part, is_piece in split_text(text, max_chars):
        if is_piece:
            layout.append(len(pieces))
            pieces.append(part)
        else:
            layout.append(part)
    return Document(pieces, layout)


def split_text(text: str, max_chars: int, *, lines: bool = True) -> list[tuple[str, bool]]:
    """(part, is_piece) spans whose concatenation is `text`: pieces to translate, and the
    whitespace around and between them. With `lines` (plain text), every line break and blank
    line is a separator, never inside a piece; without (a markup's text node, where a line
    break is only whitespace), short lines are packed together like sentences."""
    max_chars = max(1, max_chars)
    body = text.strip()
    if not body:
        return [(text, False)] if text else []
    start = text.index(body)
    spans: list[tuple[str, bool]] = [(text[:start], False)]
    current, pending = "", ""  # the piece being packed, and the separator after it
    for content, separator in _atoms(body, max_chars, 0, lines):
        if current and (
            len(current) + len(pending) + len(content) > max_chars
            or (lines and _LINE_BREAK_CHAR.search(pending) is not None)
        ):
            _emit(spans, current)
            spans.append((pending, False))
            current = content
        else:
            current += pending + content
        pending = separator
    _emit(spans, current)
    spans.append((pending + text[start + len(body) :], False))
    return _merge(spans)


def _atoms(text: str, max_chars: int, level: int, lines: bool = False) -> list[tuple[str, str]]:
    """(content, separator after it) pairs covering `text`; contents fit `max_chars` or are
    split at the next smaller boundary. With `lines`, a text of several lines is split at its
    line breaks whatever its size (the first two levels: they match every line break)."""
    if len(text) <= max_chars and not (
        lines and level < _LINE_LEVELS and _LINE_BREAK_CHAR.search(text)
    ):
        return [(text, "")]
    if level == len(_BOUNDARIES):
        return [(text[i : i + max_chars], "") for i in range(0, len(text), max_chars)]
    atoms: list[tuple[str, str]] = []
    position = 0
    for start, end in _BOUNDARIES[level].spans(text):
        if start == position or (end == len(text) and start == end):
            continue
        content = text[position:start]
        atoms.extend(_with_separator(_atoms(content, max_chars, level + 1, lines), text[start:end]))
        position = end
    if position == 0:  # no boundary of this size: the next smaller one splits it all
        return _atoms(text, max_chars, level + 1, lines)
    if position < len(text):
        atoms.extend(_atoms(text[position:], max_chars, level + 1, lines))
    return atoms


def _with_separator(atoms: list[tuple[str, str]], separator: str) -> list[tuple[str, str]]:
    if not atoms:
        return [("", separator)]
    content, inner = atoms[-1]
    return [*atoms[:-1], (content, inner + separator)]


def _emit(spans: list[tuple[str, bool]], piece: str) -> None:
    """A piece's own leading and trailing whitespace stays in the layout, untranslated."""
    stripped = piece.strip()
    if not stripped:
        spans.append((piece, False))
        return
    start = piece.index(stripped)
    spans.append((piece[:start], False))
    spans.append((stripped, True))
    spans.append((piece[start + len(stripped) :], False))


def _merge(spans: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    merged: list[tuple[str, bool]] = []
    for part, is_piece in spans:
        if not part:
            continue
        if merged and not is_piece and not merged[-1][1]:
            merged[-1] = (merged[-1][0] + part, False)
        else:
            merged.append((part, is_piece))
    return merged


def refit(piece: str, tokens: int, max_tokens: int) -> Document:
    """A piece that turned out to have more tokens than fit one request (dense scripts have
    fewer characters per token), split again at a character size scaled to its tokens."""
    max_chars = max(1, int(len(piece) * max_tokens / max(tokens, 1) * 0.9))
    return split_document(piece, max_chars)


# A line break (str.splitlines' boundaries) with the whitespace around it.
_LINE_BREAK = re.compile(r"([ \t]*(?:\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029])\s*)")


def split_lines(document: Document) -> Document:
    """`document` with each piece split at its line breaks, which stay in the layout as they
    were: for prompts whose answer is a single line (a base model's few-shot completion)."""
    pieces: list[str] = []
    layout: list[str | int] = []
    for part in document.layout:
        if isinstance(part, str):
            layout.append(part)
            continue
        # re.split with one group alternates line, break, line, ...; a piece has no
        # whitespace at either end, so it starts and ends with a line.
        for index, span in enumerate(_LINE_BREAK.split(document.pieces[part])):
            if index % 2:
                layout.append(span)
            elif span:
                layout.append(len(pieces))
                pieces.append(span)
    return Document(pieces, layout, document.escape)


def split_sentences(document: Document, max_sentences: int) -> Document:
    """`document` with each piece cut into runs of at most `max_sentences` sentences; the
    whitespace between runs stays in the layout as it was. Sentences are the unit a small
    model translates whole: given a paragraph, it drops most of it."""
    if max_sentences < 1:
        return document
    pieces: list[str] = []
    layout: list[str | int] = []
    originals: list[str] | None = None if document.originals is None else []
    for part in document.layout:
        if isinstance(part, str):
            layout.append(part)
            continue
        piece = document.pieces[part]
        runs = _sentence_runs(piece, max_sentences)
        for index, run in enumerate(runs):
            if index % 2:
                if run:
                    layout.append(run)
                continue
            layout.append(len(pieces))
            pieces.append(run)
            if originals is not None and document.originals is not None:
                # A run goes back as the source spelled it only when it is the whole piece.
                whole = len(runs) == 1
                escaped = document.escape(run) if document.escape else run
                originals.append(document.originals[part] if whole else escaped)
    return Document(pieces, layout, document.escape, originals)


def _sentence_runs(piece: str, max_sentences: int) -> list[str]:
    """run, separator, run, ... covering `piece`: runs of at most `max_sentences` sentences."""
    runs: list[str] = []
    position, count = 0, 0
    for start, end in sentence_boundaries(piece):
        count += 1
        if count < max_sentences:
            continue
        runs += [piece[position:start], piece[start:end]]
        position, count = end, 0
    runs.append(piece[position:])
    return runs
