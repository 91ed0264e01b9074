"""Properties of the HTML scanner, for any generated document: an unchanged translation gives
the document back byte for byte, and a translation that rewrites every text leaves every tag,
attribute, comment, declaration and entity where it was."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from translate_server.translation.segmentation.markup import parse_html

# Every character class that ends a line for one splitter or another, and control characters.
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
CONTROLS = "\x00\x01\x08\x1b\x7f\u200b\ufeff"
# Entities whose character no rewrite below changes: they must survive a translation.
ENTITIES = ("&amp;", "&lt;", "&gt;", "&nbsp;", "&#169;", "&#x2014;", "&quot;", "&hellip;")
KEPT = "§kept"  # the text of elements that are never translated

words = st.text(alphabet="abcdefghij xyz.,!?'" + LINE_BREAKS + CONTROLS, min_size=1, max_size=12)
text = st.lists(st.one_of(words, st.sampled_from(ENTITIES)), min_size=1, max_size=4).map("".join)
attribute_value = st.one_of(
    st.sampled_from(
        ["no", "NO", "No", "yes", "x", "a&amp;b", "notranslate", "a notranslate", "tx > 1"]
    ),
    st.text(alphabet="abc &;\n\r\u2028/=<", max_size=6),
)
attribute_name = st.sampled_from(["class", "translate", "TRANSLATE", "title", "href", "data-x"])


@st.composite
def attribute(draw: st.DrawFn) -> str:
    name, value = draw(attribute_name), draw(attribute_value)
    quote = draw(st.sampled_from(['"', "'", ""]))
    if quote == "" and (not value or re.search(r"[\s>\"'=<`]", value)):
        quote = '"'
    if quote and quote in value:
        value = value.replace(quote, "")
    spacing = draw(st.sampled_from([" ", "\n", "\r\n", "\t", "  "]))
    return f"{spacing}{name}={quote}{value}{quote}" if draw(st.booleans()) else spacing + name


@st.composite
def start_tag(draw: st.DrawFn, name: str) -> str:
    attributes = "".join(draw(st.lists(attribute(), max_size=3)))
    return f"<{draw(st.sampled_from([name, name.upper()]))}{attributes}>"


LEAVES = st.one_of(
    text,
    st.sampled_from(
        [
            "<br>",
            "<br/>",
            "<img src=a.png alt='An image'>",
            "<hr >",
            "<!-- a comment -->",
            "<!---->",
            "<!-->",
            "<!--- x --->",
            "<!DOCTYPE html>",
            "<![CDATA[ raw ]]>",
            "<?xml version='1.0'?>",
        ]
    ),
    st.sampled_from(["script", "style", "textarea", "code", "pre"]).map(
        lambda name: f"<{name}>{KEPT}</{name}>"
    ),
    st.just("<title>a title</title>"),
)


def elements(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    @st.composite
    def element(draw: st.DrawFn) -> str:
        name = draw(st.sampled_from(["p", "b", "a", "div", "span", "h1", "li"]))
        inner = "".join(draw(st.lists(children, max_size=4)))
        return draw(start_tag(name)) + inner + f"</{name}>"

    @st.composite
    def kept(draw: st.DrawFn) -> str:
        marker = draw(
            st.sampled_from(
                [' translate="no"', " translate=NO", " TRANSLATE='No'", ' class="x notranslate"']
            )
        )
        # `data-kept` tells these apart from generated elements that happen to draw a
        # translate="no" of their own (and keep whatever text they drew).
        return f"<div data-kept{marker}>{KEPT}<b>{KEPT}</b></div>"

    return st.one_of(element(), kept())


_KEPT_DIV = re.compile(
    r"<div data-kept (?:translate=\"no\"|translate=NO|TRANSLATE='No'|"
    r"class=\"x notranslate\")>"
)
documents = st.lists(st.recursive(LEAVES, elements, max_leaves=12), min_size=1, max_size=5).map(
    "".join
)
unterminated = st.sampled_from(
    ["", "<!-- not closed", "<!--", "<!-- x -- y", "<a href='x", "<b", "</b", "<?pi", "<![CDATA[ x"]
)


def _rewrite(piece: str) -> str:
    return piece.upper()


class _Oracle(HTMLParser):
    """The standard library's view of a document's markup (its data aside)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.markup: list[tuple] = []

    def handle_starttag(self, tag, attrs):  # type: ignore[no-untyped-def]
        self.markup.append(("start", tag, attrs))

    def handle_startendtag(self, tag, attrs):  # type: ignore[no-untyped-def]
        self.markup.append(("startend", tag, attrs))

    def handle_endtag(self, tag):  # type: ignore[no-untyped-def]
        self.markup.append(("end", tag))

    def handle_comment(self, data):  # type: ignore[no-untyped-def]
        self.markup.append(("comment", data))

    def handle_decl(self, decl):  # type: ignore[no-untyped-def]
        self.markup.append(("decl", decl))

    def handle_pi(self, data):  # type: ignore[no-untyped-def]
        self.markup.append(("pi", data))

    def unknown_decl(self, data):  # type: ignore[no-untyped-def]
        self.markup.append(("unknown", data))


def _markup(document: str) -> list[tuple]:
    oracle = _Oracle()
    oracle.feed(document)
    oracle.close()
    return oracle.markup


PROPERTY = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(st.text(), st.integers(min_value=1, max_value=64))
@example("<p>a\x0bb<b>c</b>\u2028<i title='x'>d</i></p>", 1000)
@example("a\rb<p>c</p>d<!-- tail", 1000)
def test_any_string_comes_back_unchanged_when_the_translation_is_the_text(
    markup: str, max_chars: int
) -> None:
    document = parse_html(markup, max_chars)
    assert document.assemble(document.pieces) == markup


@PROPERTY
@given(documents, unterminated, st.sampled_from([8, 40, 1000]))
def test_generated_html_comes_back_unchanged(body: str, tail: str, max_chars: int) -> None:
    markup = body + tail
    document = parse_html(markup, max_chars)
    assert document.assemble(document.pieces) == markup
    # One literal between two pieces, however much markup: reassembling costs the pieces.
    assert len(document.layout) <= 2 * len(document.pieces) + 1


@PROPERTY
@given(documents, unterminated)
def test_rewritten_text_keeps_every_tag_attribute_comment_and_entity(body: str, tail: str) -> None:
    # The standard library's parser, the oracle here, predates the empty comments of the
    # HTML standard: to it, `<!-->` opens a comment.
    assume("<!-->" not in body and "<!--->" not in body)
    markup = body + tail
    document = parse_html(markup, 1000)
    output = document.assemble([_rewrite(piece) for piece in document.pieces])
    assert output.endswith(tail)
    assert _markup(output[: len(output) - len(tail)]) == _markup(body)
    assert re.findall("&[#\\w]+;", output) == re.findall("&[#\\w]+;", markup)
    # Never translated: scripts, styles, code, translate="no" (any case), notranslate.
    assert output.count(KEPT) == markup.count(KEPT)
    assert not any("§" in piece for piece in document.pieces)


@PROPERTY
@given(documents)
def test_every_text_outside_skipped_elements_is_a_piece(body: str) -> None:
    # Only the elements made to be kept may keep their text here.
    assume(
        not re.search(r"(?i)notranslate|translate=['\"]?no(?![a-z])", re.sub(_KEPT_DIV, "", body))
    )
    document = parse_html(body, 1000)
    output = document.assemble([_rewrite(piece) for piece in document.pieces])
    rest = re.sub(r"<(?:[^>\"']|\"[^\"]*\"|'[^']*')*>|&[#\w]+;", "", output.replace(KEPT, ""))
    # (A title inside an element that is not translated stays as it is.)
    assert not re.search("[a-j]", rest.replace("a title", ""))
