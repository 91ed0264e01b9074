"""Splitting keeps every character: for any text, the pieces and the layout between them give
the text back exactly, and no piece starts or ends with whitespace."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from translate_server.translation.segmentation.segments import split_document, split_sentences

LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
# Text dense in what the boundaries look for: blanks, line breaks of every class, sentence
# and clause ends, CJK punctuation and quotes.
dense = st.text(alphabet="ab .!?…,;:。！？，、\"')»\t " + LINE_BREAKS, max_size=300)
# Sentences of words, capitals, abbreviations and initials, between any blanks.
prose = st.lists(
    st.sampled_from(
        [
            "Dr.",
            "e.g.",
            "U.S.",
            "J.",
            "word",
            "Word",
            "end.",
            "Why?",
            "No!",
            "“Quoted.”",
            "3.5",
            "。",
            "会议",
            " ",
            "\n",
            "\n\n",
        ]
    ),
    max_size=60,
).map(" ".join)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=300), dense), st.integers(min_value=1, max_value=80))
@example("a" + " " * 50 + "b", 10)
@example("a.\u2028\u2029 b\x85\x0bc\r\n\r\nd", 3)
def test_pieces_and_layout_give_the_text_back(text: str, max_chars: int) -> None:
    document = split_document(text, max_chars)
    assert document.assemble(document.pieces) == text
    assert all(piece and piece == piece.strip() for piece in document.pieces)
    assert [part for part in document.layout if isinstance(part, int)] == list(
        range(len(document.pieces))
    )


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(st.text(max_size=300), dense, prose),
    st.integers(min_value=1, max_value=400),
    st.integers(min_value=0, max_value=3),
)
@example("Dr. Smith came.  He left!\n\nA b. C d? 会议开始。然后结束！", 400, 1)
def test_sentence_pieces_and_layout_give_the_text_back(
    text: str, max_chars: int, sentences: int
) -> None:
    document = split_sentences(split_document(text, max_chars), sentences)
    assert document.assemble(document.pieces) == text
    assert all(piece and piece == piece.strip() for piece in document.pieces)
    assert [part for part in document.layout if isinstance(part, int)] == list(
        range(len(document.pieces))
    )
