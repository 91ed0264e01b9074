"""Markdown: the text of each paragraph, heading, list item and table cell is a segment;
code blocks, inline code, HTML blocks, link reference definitions and front matter are kept
as they are.

markdown-it-py (CommonMark, plus GFM tables and strikethrough; front matter through
mdit-py-plugins) rather than mistune: its block tokens carry their source line ranges and
its inline tokens the raw source text, so a translation replaces exactly that text in the
original file and everything else (markers, indentation, blank lines, line endings) is
copied through byte for byte. mistune's AST holds no source positions, so putting text back
would mean rendering Markdown again, which rewrites the file's formatting.

A segment that spans several lines keeps its line prefixes (`> `, list indentation) for as
many lines as the translation has; a one-line segment (heading, table cell) stays one line.
Inline code spans and what follows a link's or image's text (`](url "title")`, `][label]`)
are given to the translator for context, then restored verbatim wherever the translation
kept their number.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from translate_server.documents.formats.base import (
    DocumentFormat,
    Extracted,
    FormatOptions,
    TextEncoding,
    decode_text,
)
from translate_server.documents.formats.protect import restore

_CODE_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
# What follows a link's or image's text: `(destination "title")` or a reference `[label]`.
_LINK_TAIL = re.compile(r"\]\([^)\n]*\)|\]\[[^\]\n]*\]")
_PARSER = MarkdownIt("commonmark").enable(["table", "strikethrough"]).use(front_matter_plugin)
_CELL_OPENERS = frozenset({"th_open", "td_open"})


@dataclass
class _Span:
    start: int  # offsets of the segment's text in the source
    end: int
    joiners: list[str]  # the source between its lines (line ending and next line's prefix)
    protected: list[tuple[re.Pattern[str], list[str]]]  # spans restored verbatim, by kind
    text: str  # its lines without their prefixes, as the translator sees it


class MarkdownExtracted(Extracted):
    def __init__(self, source: str, spans: list[_Span], encoding: TextEncoding) -> None:
        self.source = source
        self.spans = spans
        self.encoding = encoding
        self.segments = [span.text for span in spans]

    def rebuild(self, translations: Sequence[str]) -> bytes:
        self.check(translations)
        out: list[str] = []
        position = 0
        for span, original, translation in zip(
            self.spans, self.segments, translations, strict=True
        ):
            out.append(self.source[position : span.start])
            unchanged = translation == original
            out.append(self.source[span.start : span.end] if unchanged else _fit(span, translation))
            position = span.end
        out.append(self.source[position:])
        return self.encoding.encode("".join(out))


def _fit(span: _Span, translation: str) -> str:
    for pattern, originals in span.protected:
        translation = restore(translation, pattern, originals)
    lines = translation.split("\n")
    if not span.joiners:
        return " ".join(line.strip() for line in lines)
    out = lines[0]
    for index, line in enumerate(lines[1:]):
        out += span.joiners[min(index, len(span.joiners) - 1)] + line
    return out


def extract(data: bytes, options: FormatOptions) -> Extracted:
    source, encoding = decode_text(data)
    return MarkdownExtracted(source, _spans(source), encoding)


def _spans(source: str) -> list[_Span]:
    lines = source.split("\n")
    line_starts = [0]
    for line in lines:
        line_starts.append(line_starts[-1] + len(line) + 1)
    tokens = _PARSER.parse(source)
    spans: list[_Span] = []
    cursor = 0
    for index, token in enumerate(tokens):
        if token.type != "inline" or not token.map or not _has_text(token):
            continue
        in_cell = index > 0 and tokens[index - 1].type in _CELL_OPENERS
        span = _locate(token, source, lines, line_starts, cursor, in_cell)
        if span is not None:
            spans.append(span)
            cursor = span.end
    return spans


def _has_text(token: Token) -> bool:
    """Whether the inline holds anything a translator would change (not only code)."""
    return any(child.type == "text" and child.content.strip() for child in token.children or [])


def _locate(
    token: Token, source: str, lines: list[str], line_starts: list[int], cursor: int, in_cell: bool
) -> _Span | None:
    """Where each line of the inline's content lies in the source; None (left untranslated)
    where the parser normalised the text so that it cannot be found again."""
    first_line = token.map[0]
    starts: list[int] = []
    ends: list[int] = []
    for offset, content_line in enumerate(token.content.split("\n")):
        number = first_line + offset
        if number >= len(lines):
            return None
        line, line_start = lines[number], line_starts[number]
        if in_cell:  # several cells share a line: search forwards from the previous one
            column = line.find(content_line, max(0, cursor - line_start))
        else:  # the content is the end of its line; markers and prefixes precede it
            column = line.rfind(content_line)
        if column < 0 or not content_line:
            return None
        starts.append(line_start + column)
        ends.append(line_start + column + len(content_line))
    joiners = [source[end:start] for end, start in zip(ends, starts[1:], strict=False)]
    protected = _protected(token, source[starts[0] : ends[-1]])
    return _Span(starts[0], ends[-1], joiners, protected, token.content)


def _protected(token: Token, text: str) -> list[tuple[re.Pattern[str], list[str]]]:
    """The code spans and link tails of the segment's source, for each kind whose number the
    parser confirms (a shortcut reference link `[label]`, say, has no tail to protect)."""
    children = token.children or []
    counts = {
        _CODE_SPAN: sum(child.type == "code_inline" for child in children),
        _LINK_TAIL: sum(
            child.type == "image" or (child.type == "link_open" and child.markup != "autolink")
            for child in children
        ),
    }
    kinds = []
    for pattern, count in counts.items():
        found = [match.group() for match in pattern.finditer(text)]
        if found and len(found) == count:
            kinds.append((pattern, found))
    return kinds


FORMAT = DocumentFormat("md", (".md", ".markdown"), "text/markdown; charset=utf-8", extract)
