from __future__ import annotations

import pytest

from translate_server.translation.segmentation.segments import refit, split_document, split_text

TEXT = (
    "  The first sentence. The second one!  A third?\n\n"
    "Second paragraph, with a clause; and more words here.\nA new line.\n\n\n"
    "  Last paragraph.  \n"
)


@pytest.mark.parametrize("max_chars", [1, 5, 12, 30, 60, 10_000])
def test_pieces_and_layout_rebuild_the_text_exactly(max_chars: int) -> None:
    document = split_document(TEXT, max_chars)
    assert document.assemble(document.pieces) == TEXT
    assert all(piece == piece.strip() and piece for piece in document.pieces)


def test_short_text_is_one_piece_with_its_whitespace_outside() -> None:
    document = split_document(TEXT, 10_000)
    assert document.pieces == [TEXT.strip()]
    assert document.layout == ["  ", 0, "  \n"]


def test_cuts_at_paragraphs_and_sentences_before_words() -> None:
    pieces = split_document(TEXT, 60).pieces
    assert pieces[0] == "The first sentence. The second one!  A third?"
    assert pieces[1] == "Second paragraph, with a clause; and more words here."
    assert pieces[2] == "A new line.\n\n\n  Last paragraph."  # short paragraphs packed


def test_sentence_ends_keep_closing_quotes_and_cjk_full_stops() -> None:
    assert split_document('He said "Stop." Then he left.', 16).pieces == [
        'He said "Stop."',
        "Then he left.",
    ]
    assert split_document("会议已改到星期四下午。请重新启动服务器。", 12).pieces == [
        "会议已改到星期四下午。",
        "请重新启动服务器。",
    ]


def test_pieces_respect_the_size_where_words_allow() -> None:
    for piece in split_document(TEXT, 12).pieces:
        assert len(piece) <= 12
    assert split_document("x" * 25, 10).pieces == ["x" * 10, "x" * 10, "x" * 5]


def test_blank_text() -> None:
    assert split_text("   ", 5) == [("   ", False)]
    assert split_text("", 5) == []


def test_refit_scales_by_tokens() -> None:
    piece = "one two three four five six seven eight nine ten"
    document = refit(piece, tokens=40, max_tokens=10)
    assert len(document.pieces) > 3
    assert document.assemble(document.pieces) == piece


def test_a_long_run_of_blanks_is_one_separator() -> None:
    # The line-break pattern was tried from every blank of the run: quadratic.
    for blanks in (" " * 30_000, " \t" * 15_000):
        text = "a" + blanks + "b"
        document = split_document(text, 100)
        assert document.pieces == ["a", "b"]
        assert document.assemble(document.pieces) == text


def test_a_text_without_large_boundaries_is_split_once_per_level(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # A level with no boundary used to split the whole text at the next level twice (once
    # kept, once thrown away): 2^levels times the work for clause- or word-only texts.
    from translate_server.translation.segmentation import segments as segmentation

    calls = []
    atoms = segmentation._atoms

    def counting(text: str, max_chars: int, level: int) -> list[tuple[str, str]]:
        calls.append(level)
        return atoms(text, max_chars, level)

    monkeypatch.setattr(segmentation, "_atoms", counting)
    text = "a," * 1000
    document = split_document(text, 100)
    assert document.assemble(document.pieces) == text
    assert len(calls) < 1100  # one per clause, and one per level above
