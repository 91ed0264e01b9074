"""Sentences: where a text is cut when a model translates a few sentences at a time."""

from __future__ import annotations

from translate_server.translation.segmentation.segments import (
    sentence_boundaries,
    split_document,
    split_sentences,
)


def sentences(text: str, per_piece: int = 1) -> list[str]:
    return split_sentences(split_document(text, 10_000), per_piece).pieces


def test_a_paragraph_becomes_its_sentences_with_the_spacing_kept() -> None:
    text = 'The file is saved.  Is it open? Yes!\nIt is… "Done." Next one.'
    document = split_sentences(split_document(text, 10_000), 1)
    assert document.pieces == [
        "The file is saved.",
        "Is it open?",
        "Yes!",
        "It is…",
        '"Done."',
        "Next one.",
    ]
    assert document.assemble(document.pieces) == text


def test_abbreviations_initials_and_lower_case_continuations_are_not_ends() -> None:
    text = (
        "Dr. Smith and J. R. Tolkien met in the U.S. Army. They used e.g. Python and "
        "approx. five tools, i.e. many. Version 2. is out."
    )
    assert sentences(text) == [
        "Dr. Smith and J. R. Tolkien met in the U.S. Army.",
        "They used e.g. Python and approx. five tools, i.e. many.",
        "Version 2. is out.",
    ]


def test_cjk_full_stops_end_sentences_without_a_space() -> None:
    assert sentences("会议九点开始。请准时到达！谢谢？") == [
        "会议九点开始。",
        "请准时到达！",
        "谢谢？",
    ]


def test_pieces_hold_at_most_the_sentences_asked_for() -> None:
    text = "One. Two. Three. Four. Five."
    assert sentences(text, 2) == ["One. Two.", "Three. Four.", "Five."]
    assert sentences(text, 0) == [text]


def test_the_end_of_the_text_is_no_boundary() -> None:
    assert list(sentence_boundaries("One sentence. ")) == []
    assert list(sentence_boundaries("One. Two.")) == [(4, 5)]


def test_html_text_nodes_cut_in_sentences_keep_their_escaping() -> None:
    from translate_server.translation.segmentation.markup import parse_html

    document = split_sentences(parse_html("<p>Fish &amp; chips. Tea &lt; coffee.</p>", 1000), 1)
    assert document.pieces == ["Fish & chips.", "Tea < coffee."]
    assert document.assemble(document.pieces) == "<p>Fish &amp; chips. Tea &lt; coffee.</p>"
