"""HTML and XML: translate the text nodes, keep every byte of markup as it was.

A scanner finds where each text node starts and ends in the original string; everything else
(tags, attributes, comments, doctype, CDATA, processing instructions, odd whitespace) is copied
through untouched, so the structure cannot change. Text in <script>, <style>, <code>, <pre>,
<textarea>, <kbd>, <samp>, <var>, <template>, <svg>, <math> and in any element with
`translate="no"` (any case; an element inside it with `translate="yes"` is translated again,
as HTML's inheritance has it) or class `notranslate` is left as it is. A piece whose translation
is its own text (an echo, a name) goes back exactly as it was written, entities included; in a
translation, a character the document spelled as an entity is spelled that way again.

XML is read as XML: no element is special (no void elements, no raw-text <script> or
<style>); only the `ignore_tags` a client names keep their text, and those are honoured in
HTML too.

Why a scanner of our own rather than a parser: this module needs exact source offsets, and
none of the usual tokenizers gives them cheaply. The standard library's `html.parser` reports
(line, column) pairs whose line counting disagrees with `str.splitlines` (\\r, \\x0b, \\x0c,
\\x1c-\\x1e, \\x85, \\u2028 and \\u2029 end a line for one and not the other), so offsets drifted
and tags came back escaped; it restarts its search at every `<` of an unterminated construct
(`<!--`, `<a b="`, `</a`, `<?`), which is quadratic in the document; and it turns an
unterminated comment at the end into text. html5lib, lxml and selectolax build trees or
events without source positions. The scanner follows the tokenizer of the HTML standard
(section 13.2.5) only as far as finding token boundaries needs: every step is a forward
`str.find` or an anchored pattern that cannot backtrack past its own token, so one pass over
the document is linear, and an unterminated construct runs to the end of the document as
markup (a comment, a tag) once, never retried.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from translate_server.translation.segmentation.segments import Document, split_text

_SKIPPED = frozenset(
    {"script", "style", "code", "pre", "textarea", "kbd", "samp", "var", "template", "svg", "math"}
)
_VOID = frozenset(
    {
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
    }
)
# Elements whose content is not markup: it runs to their own end tag. Only <title>'s is text
# to translate (its entities are decoded); the others' is never translated.
_RAW_TEXT = frozenset(
    {"script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "plaintext"}
)
_TRANSLATED_RAW = frozenset({"title"})

_TAG_NAME = re.compile(r"[^\s/>]*")
_SPACE_OR_SLASH = re.compile(r"[\s/]*")
_ATTRIBUTE_NAME = re.compile(r"[^\s/>][^\s/>=]*")
_EQUALS = re.compile(r"\s*=\s*")
_UNQUOTED = re.compile(r"[^\s>]*")
_COMMENT_END = re.compile(r"--!?>")
_ENTITY = re.compile(r"&(?:#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[A-Za-z][A-Za-z0-9]*;?)")
_LETTER = re.compile(r"[A-Za-z]")
_MARKUP_START = re.compile(r"<[A-Za-z!/?]")  # any other `<` is text


def parse_html(
    markup: str, max_chars: int, *, xml: bool = False, ignore_tags: tuple[str, ...] = ()
) -> Document:
    """The text nodes of `markup` as pieces (unescaped, long ones split); the layout holds the
    markup and whitespace verbatim, and translations are escaped back as they go in."""
    pieces: list[str] = []
    originals: list[str] = []
    layout: list[str | int] = []
    literal_from = 0  # where the markup and whitespace since the last piece began
    spellings: dict[str, str] = {}
    for start, end, translatable in _Scanner(markup, xml, ignore_tags).spans():
        raw = markup[start:end]
        if not translatable or not raw.strip():
            continue
        _note_entities(raw, spellings)
        position = start
        # A line break in a text node is only whitespace: short lines are packed together.
        for part, is_piece in split_text(raw, max_chars, lines=False):
            text = html.unescape(part) if is_piece else ""
            if text.strip():
                # Everything between two pieces is one literal: the layout stays as long
                # as the pieces, however much markup there is.
                if position > literal_from:
                    layout.append(markup[literal_from:position])
                layout.append(len(pieces))
                pieces.append(text)
                originals.append(part)
                literal_from = position + len(part)
            position += len(part)
    if len(markup) > literal_from:
        layout.append(markup[literal_from:])
    return Document(pieces, layout, escape=_escaper(spellings), originals=originals)


def _note_entities(raw: str, spellings: dict[str, str]) -> None:
    """Characters the text spells as entities (`&nbsp;`, `&#8212;`), other than letters,
    digits and whitespace: a translation spells them the same way."""
    if "&" not in raw:
        return
    for match in _ENTITY.finditer(raw):
        entity = match.group()
        char = html.unescape(entity)
        if (
            len(char) == 1
            and char != entity
            and not (char.isascii() and (char.isalnum() or char.isspace()))
        ):
            spellings.setdefault(char, entity)


def _escaper(spellings: dict[str, str]) -> Callable[[str], str]:
    table = {ord("&"): "&amp;", ord("<"): "&lt;", ord(">"): "&gt;"}
    table.update({ord(char): entity for char, entity in spellings.items()})

    def escape(text: str) -> str:
        return text.translate(table)

    return escape


class _Scanner:
    """One pass over a document: the spans of markup and of text, and which text is to be
    translated (outside skipped elements)."""

    def __init__(self, markup: str, xml: bool = False, ignore_tags: tuple[str, ...] = ()) -> None:
        self.markup = markup
        self.xml = xml
        self._ignored = frozenset(tag.lower() for tag in ignore_tags)
        self._spans: list[tuple[int, int, bool]] = []
        # Open elements: (name, skips its text, skips it whatever its children say).
        self._stack: list[tuple[str, bool, bool]] = []
        self._open: dict[str, int] = {}  # how many of each name are on the stack

    def spans(self) -> list[tuple[int, int, bool]]:
        """(start, end, translatable) covering the whole input, in order."""
        markup, length = self.markup, len(self.markup)
        position = text_start = 0
        while position < length:
            found = _MARKUP_START.search(markup, position)
            if found is None:
                break
            lt = found.start()
            outside_skipped = not self._skipping()  # before the markup opens or closes one
            end = self._markup_at(lt)
            if end is None:  # a `<` that starts nothing is text
                position = lt + 1
                continue
            self._text(text_start, lt, outside_skipped)
            self._spans.append((lt, end, False))
            position = text_start = end
            if (raw := self._raw_text_of_last_tag()) is not None:
                position = text_start = self._raw_text(position, *raw)
        self._text(text_start, length, not self._skipping())
        return self._spans

    # -- text ---------------------------------------------------------------------------------
    def _skipping(self) -> bool:
        return bool(self._stack) and self._stack[-1][1]

    def _text(self, start: int, end: int, translatable: bool) -> None:
        if end > start:
            self._spans.append((start, end, translatable))

    # -- markup -------------------------------------------------------------------------------
    def _markup_at(self, lt: int) -> int | None:
        """Where the markup that starts at `lt` (a `<`) ends; None when the `<` is text."""
        markup = self.markup
        following = markup[lt + 1 : lt + 2]
        if _LETTER.fullmatch(following):
            return self._start_tag(lt)
        if following == "/":
            after = markup[lt + 2 : lt + 3]
            if _LETTER.fullmatch(after):
                return self._end_tag(lt)
            if after == "":
                return None  # `</` at the very end is text
            return self._until(">", lt + 2)  # `</>` and bogus comments
        if following == "!":
            if markup.startswith("<!--", lt):
                return self._comment(lt)
            if markup.startswith("<![CDATA[", lt):
                return self._until("]]>", lt + 9)
            return self._until(">", lt + 2)  # doctype, other declarations
        if following == "?":
            return self._until(">", lt + 2)  # processing instructions (bogus comments)
        return None

    def _until(self, terminator: str, start: int) -> int:
        """Just after the next `terminator`, or the end of the document."""
        found = self.markup.find(terminator, start)
        return len(self.markup) if found < 0 else found + len(terminator)

    def _comment(self, lt: int) -> int:
        markup = self.markup
        for empty in ("<!-->", "<!--->"):
            if markup.startswith(empty, lt):
                return lt + len(empty)
        found = _COMMENT_END.search(markup, lt + 4)
        return len(markup) if found is None else found.end()  # unterminated: to the end

    def _attributes(self, position: int) -> tuple[int, dict[str, str], bool]:
        """A tag's attributes from `position`: where the tag ends (the end of the document
        when it never closes), its attributes (lower-case names, decoded values; the first
        of a repeated name counts) and whether it is self-closing."""
        markup, length = self.markup, len(self.markup)
        attributes: dict[str, str] = {}
        while True:
            skipped_from = position
            # Never None: the pattern accepts "" or the caller saw it match.
            position = _SPACE_OR_SLASH.match(markup, position).end()  # type: ignore[union-attr]
            if position >= length:
                return length, attributes, False
            if markup[position] == ">":
                closing = position > skipped_from and markup[position - 1] == "/"
                return position + 1, attributes, closing
            # Never None: the pattern accepts "" or the caller saw it match.
            name_end = _ATTRIBUTE_NAME.match(markup, position).end()  # type: ignore[union-attr]
            name = markup[position:name_end].lower()
            position = name_end
            value = ""
            if equals := _EQUALS.match(markup, position):
                position = equals.end()
                quote = markup[position : position + 1]
                if quote in ('"', "'"):
                    close = markup.find(quote, position + 1)
                    if close < 0:
                        return length, attributes, False
                    value, position = markup[position + 1 : close], close + 1
                else:
                    # Never None: the pattern accepts "" or the caller saw it match.
                    unquoted_end = _UNQUOTED.match(markup, position).end()  # type: ignore[union-attr]
                    value, position = markup[position:unquoted_end], unquoted_end
            attributes.setdefault(name, html.unescape(value) if "&" in value else value)

    def _start_tag(self, lt: int) -> int:
        # Never None: the pattern accepts "" or the caller saw it match.
        name_end = _TAG_NAME.match(self.markup, lt + 1).end()  # type: ignore[union-attr]
        name = self.markup[lt + 1 : name_end].lower()
        end, attributes, self_closing = self._attributes(name_end)
        self._last_start = (name, end)
        if (not self.xml and name in _VOID) or self_closing:
            return end
        # HTML's own ways to keep text (raw elements, `translate="no"`, class notranslate)
        # mean nothing in XML; the client's `ignore_tags` count in both. Code, raw text and
        # ignored tags are kept whole; `translate` is inherited, as HTML defines it, so a
        # `translate="yes"` (or empty) inside a `translate="no"` translates again.
        parent_skips, parent_hard = self._stack[-1][1:] if self._stack else (False, False)
        hard = parent_hard or name in self._ignored or (not self.xml and name in _SKIPPED)
        translate = None if self.xml else attributes.get("translate")
        if hard:
            skip = True
        elif translate is not None and translate.strip().lower() in ("yes", ""):
            skip = False
        elif translate is not None and translate.strip().lower() == "no":
            skip = True
        else:  # an invalid `translate` value is no value: inherited, like no attribute
            skip = parent_skips or (
                not self.xml and "notranslate" in attributes.get("class", "").split()
            )
        self._stack.append((name, skip, hard))
        self._open[name] = self._open.get(name, 0) + 1
        return end

    def _end_tag(self, lt: int) -> int:
        # Never None: the pattern accepts "" or the caller saw it match.
        name_end = _TAG_NAME.match(self.markup, lt + 2).end()  # type: ignore[union-attr]
        name = self.markup[lt + 2 : name_end].lower()
        end, _, _ = self._attributes(name_end)
        self._last_start = None
        # Close the innermost open element of that name and everything inside it; an end tag
        # with no open element of its name closes nothing. Each element is popped once.
        if self._open.get(name):
            while True:
                popped, _, _ = self._stack.pop()
                self._open[popped] -= 1
                if popped == name:
                    break
        return end

    _last_start: tuple[str, int] | None = None

    def _raw_text_of_last_tag(self) -> tuple[str, bool] | None:
        """(name, translatable) when the markup just scanned opened an element whose content
        is not markup."""
        last, self._last_start = self._last_start, None
        if (
            self.xml
            or last is None
            or last[0] not in _RAW_TEXT
            or last[1] >= len(self.markup)
            or not self._stack
            or self._stack[-1][0] != last[0]
        ):
            return None
        return last[0], last[0] in _TRANSLATED_RAW

    def _raw_text(self, start: int, name: str, translatable: bool) -> int:
        """The content of a raw-text element, up to (not including) its end tag."""
        if name == "plaintext":
            end = len(self.markup)
        else:
            closing = _end_tag_pattern(name).search(self.markup, start)
            end = len(self.markup) if closing is None else closing.start()
        self._text(start, end, translatable and not self._skipping())
        return end


_END_TAGS: dict[str, re.Pattern[str]] = {}


def _end_tag_pattern(name: str) -> re.Pattern[str]:
    if name not in _END_TAGS:
        _END_TAGS[name] = re.compile(rf"</{name}(?=[\s/>]|\Z)", re.IGNORECASE)
    return _END_TAGS[name]
