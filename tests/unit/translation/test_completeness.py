"""Omissions, additions and copied examples, told from the source and the answer alone."""

from __future__ import annotations

import pytest

from translate_server.translation.guard.checks import FailureKind, check_translation
from translate_server.translation.guard.completeness import (
    copies_example,
    example_pairs,
    length_bounds,
    length_failure,
)

PARAGRAPH = (
    "The package provides a command line tool to convert images. It reads most common "
    "formats and writes them back in any other. Large files are processed in pieces, "
    "so memory use stays low."
)
GERMAN = (
    "Das Paket bietet ein Kommandozeilenwerkzeug zum Umwandeln von Bildern. Es liest die "
    "meisten gängigen Formate und schreibt sie in jedes andere zurück. Große Dateien werden "
    "in Teilen verarbeitet, sodass der Speicherverbrauch gering bleibt."
)
EXAMPLES = example_pairs(
    [
        {"en": "The meeting starts at nine o'clock.", "es": "La reunión empieza a las nueve."},
        {"en": "Settings", "es": "Configuración"},
    ],
    "en",
    "es",
)


def test_a_whole_translation_passes_and_a_paragraph_cut_to_its_last_sentence_is_an_omission() -> (
    None
):
    assert length_failure(PARAGRAPH, GERMAN, "en", "de") is None
    last = GERMAN.rsplit(". ", 1)[1]
    assert length_failure(PARAGRAPH, last, "en", "de") == "omission"


def test_fewer_than_half_the_sentences_is_an_omission_even_at_a_plausible_length() -> None:
    source = "One thing. Two things. Three things. Four things."
    assert (
        length_failure(source, "Ein Ding, zwei Dinge, drei Dinge und vier Dinge.", "en", "de")
        == "omission"
    )


def test_an_answer_that_runs_on_is_an_addition() -> None:
    assert (
        length_failure("Save the file.", "Speichern Sie die Datei. " * 5, "en", "de") == "addition"
    )
    assert length_failure(PARAGRAPH, GERMAN + " " + GERMAN, "en", "de") == "addition"


def test_bounds_follow_the_script_and_invert_into_english() -> None:
    low_zh, high_zh = length_bounds("en", "zh-Hans")
    low_de, high_de = length_bounds("en", "de")
    assert high_zh < 1.5 < high_de and low_zh < low_de
    back_low, back_high = length_bounds("de", "en")
    assert back_low == pytest.approx(1 / high_de) and back_high == pytest.approx(1 / low_de)
    # Neither side English: around the ratio of the two medians.
    low, high = length_bounds("zh-Hans", "de")
    assert low < 2.9 < high
    assert length_bounds("en", "xx") == length_bounds("en", "tlh")  # uncalibrated: the default


def test_short_sources_are_not_judged_by_length() -> None:
    assert length_failure("Save", "Speichern Sie jetzt bitte", "en", "de") is None


def test_a_copied_example_is_caught_and_its_own_source_is_not() -> None:
    assert copies_example(PARAGRAPH, "La reunión empieza a las nueve.", EXAMPLES)
    # Paraphrased, as a base model that lost the thread does.
    assert copies_example(
        PARAGRAPH, "El comienzo de la reunión se ha iniciado a las nueve.", EXAMPLES
    )
    assert not copies_example(
        "The meeting starts at nine.", "La reunión empieza a las nueve.", EXAMPLES
    )
    # A one-word example may be the right answer to a short text, not to a paragraph.
    assert not copies_example("Preferences", "Configuración", EXAMPLES)
    assert copies_example(PARAGRAPH, "Configuración", EXAMPLES)
    assert not copies_example(PARAGRAPH, "El paquete ofrece una herramienta.", EXAMPLES)


def test_check_translation_reports_them_with_the_classic_failures() -> None:
    verdict = check_translation(PARAGRAPH, "Configuración", "en", "es", examples=EXAMPLES)
    assert FailureKind.OMISSION in verdict.failures
    assert FailureKind.COPIED_EXAMPLE in verdict.failures


def test_a_long_text_much_shorter_than_people_write_it_lost_text() -> None:
    from translate_server.translation.guard.completeness import text_omission

    # Japanese runs at about 0.58 of English's characters; a third is too little.
    assert text_omission(300, 90, "en", "ja")
    assert not text_omission(300, 150, "en", "ja")
    assert text_omission(300, 150, "en", "de") and not text_omission(300, 300, "en", "de")
    assert not text_omission(150, 10, "en", "de")  # short texts are the pieces' to judge
