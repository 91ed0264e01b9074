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


def test_short_line_is_one_piece_with_its_whitespace_outside() -> None:
    document = split_document("  The first sentence. The second one!  \n", 10_000)
    assert document.pieces == ["The first sentence. The second one!"]
    assert document.layout == ["  ", 0, "  \n"]


def test_every_line_break_stays_in_the_layout_however_short_the_lines() -> None:
    # The model's answer never decides where a line or a paragraph ends.
    document = split_document(TEXT, 10_000)
    assert document.pieces == [
        "The first sentence. The second one!  A third?",
        "Second paragraph, with a clause; and more words here.",
        "A new line.",
        "Last paragraph.",
    ]
    assert document.layout == ["  ", 0, "\n\n", 1, "\n", 2, "\n\n\n  ", 3, "  \n"]


def test_cuts_at_paragraphs_and_sentences_before_words() -> None:
    pieces = split_document(TEXT, 30).pieces
    assert pieces[0] == "The first sentence."
    assert pieces[1] == "The second one!  A third?"  # short sentences packed
    assert pieces[2] == "Second paragraph,"


def test_a_markup_text_node_packs_its_lines() -> None:
    # In HTML a line break is whitespace: a hard-wrapped paragraph stays one piece.
    assert split_text("one line\nand the next", 100, lines=False) == [
        ("one line\nand the next", True)
    ]
    assert split_text("one line\nand the next", 100) == [
        ("one line", True),
        ("\n", False),
        ("and the next", True),
    ]


def test_a_translations_line_breaks_fold_into_a_piece_that_had_none() -> None:
    document = split_document("First line.\n\nSecond line.", 100)
    assert document.assemble(["Erste\n\nZeile.", "Zweite\r\n Zeile.\n"]) == (
        "Erste Zeile.\n\nZweite Zeile."
    )


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

    def counting(text: str, max_chars: int, level: int, lines: bool) -> list[tuple[str, str]]:
        calls.append(level)
        return atoms(text, max_chars, level, lines)

    monkeypatch.setattr(segmentation, "_atoms", counting)
    text = "a," * 1000
    document = split_document(text, 100)
    assert document.assemble(document.pieces) == text
    assert len(calls) < 1100  # one per clause, and one per level above
