"""DeepL Write's judge of a rewrite: the committed learners' corrections all pass it, and the
answers a small model gives instead of a rewrite do not, stripped where they can be."""

from __future__ import annotations

import pytest

from translate_server.quality.write_bench import load_sentences
from translate_server.translation.guard.rewrite import check_rewrite

TEXT = "Please send me the report until Friday."


def judge(answer: str, text: str = TEXT, task: str = "rephrase", **kwargs):  # type: ignore[no-untyped-def]
    return check_rewrite(answer, text, task=task, language_name="English", language="en", **kwargs)


def test_every_committed_correction_is_a_rewrite_of_its_text() -> None:
    pairs = load_sentences()
    assert len(pairs) == 100 and all(text != correction for text, correction in pairs)
    for task in ("correct", "rephrase"):
        for text, correction in pairs:
            verdict = judge(correction, text, task)
            assert (verdict.text, verdict.failure) == (correction, None), (task, text)


@pytest.mark.parametrize(
    ("answer", "cleaned"),
    [
        (
            "<instruction>\nPlease send me the report by Friday.",
            "Please send me the report by Friday.",
        ),
        (
            "<text>Please send me the report by Friday.</text>",
            "Please send me the report by Friday.",
        ),
        (
            "Here is the corrected text: Please send me the report by Friday.",
            "Please send me the report by Friday.",
        ),
        (
            "Corrected sentence:\nPlease send me the report by Friday.",
            "Please send me the report by Friday.",
        ),
        (
            "I'm ready to assist you. Please send me the report by Friday.",
            "Please send me the report by Friday.",
        ),
        (
            "Please send me the report by Friday. Let me know if you need anything else!",
            "Please send me the report by Friday.",
        ),
    ],
)
def test_scaffolding_preambles_and_replies_are_stripped(answer: str, cleaned: str) -> None:
    verdict = judge(answer)
    assert (verdict.text, verdict.failure) == (cleaned, None)


@pytest.mark.parametrize(
    ("answer", "failure"),
    [
        ("The original text is:", "preamble"),
        ("Here is the rephrased sentence:", "preamble"),
        ("", "empty"),
        ("Sure! Please provide the text you would like me to improve.", "reply"),
        ("I can help you with that, what is the deadline?", "reply"),
        ("The weather is nice today and we are going to the beach.", "other_meaning"),
    ],
)
def test_what_is_not_a_rewrite_is_named(answer: str, failure: str) -> None:
    assert judge(answer).failure == failure


def test_another_language_is_named_where_the_detector_is_sure() -> None:
    german = "Bitte schicken Sie mir den Bericht bis Freitag."
    assert judge(german, detect=lambda text: ("de", 0.99)).failure == "wrong_language"
    assert judge(german, detect=lambda text: ("de", 0.5)).failure == "other_meaning"
    # Write asked to write a German text in English: only the language is judged.
    answer = "Please send me the report by Friday."
    english = judge(answer, german, same_language=False, detect=lambda text: ("en", 0.99))
    assert english.failure is None
