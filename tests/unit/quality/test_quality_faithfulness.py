"""Faithfulness metrics: length ratio, omissions, hallucinations (too long, or a few-shot
example brought in), what the server flagged, and their means."""

from __future__ import annotations

import pytest

from translate_server.quality import paragraphs
from translate_server.quality.client import Answer
from translate_server.quality.datasets import REQUEST_TAGS, Segment
from translate_server.quality.faithfulness import (
    example_brought_in,
    faithfulness,
    is_flagged,
    is_hallucination,
    is_omission,
    length_ratio,
    prompt_examples,
)
from translate_server.quality.scoring import mean_scores, score_pair
from translate_server.translation.guard.checks import check_translation

EXAMPLES = (
    {
        "en": "The meeting starts at nine o'clock.",
        "de": "Die Besprechung beginnt um neun Uhr.",
        "es": "La reunión empieza a las nueve.",
        "zh": "会议九点开始。",
    },
    {"en": "Settings", "de": "Einstellungen"},
)
REFERENCE = "Sie wissen meistens Dinge über die Familie, die nicht aufgeschrieben sind."  # 74


def _segment(
    source: str = "They usually know things about the family that haven't been written down.",
    reference: str = REFERENCE,
    target: str = "de",
) -> Segment:
    return Segment(
        id="p#1",
        source=source,
        reference=reference,
        source_lang="en",
        target_lang=target,
        kind="paragraph",
    )


def _answer(
    text: str, reason: str | None = "stop", warnings: tuple[str, ...] = (), error: str | None = None
) -> Answer:
    return Answer(segment_id="p#1", text=text, finish_reason=reason, warnings=warnings, error=error)


def test_length_ratio_omission_and_excess_length_against_the_reference() -> None:
    assert length_ratio("x" * 37, REFERENCE) == 0.5
    assert length_ratio("anything", "  ") is None
    assert not is_omission("x" * 37, REFERENCE)  # half is not less than half
    assert is_omission("x" * 36, REFERENCE) and is_omission("", REFERENCE)
    assert not is_hallucination(_segment(), "x" * 148, EXAMPLES)  # twice is not more
    assert is_hallucination(_segment(), "x" * 149, EXAMPLES)


def test_a_few_shot_example_brought_in_is_a_hallucination_of_any_length() -> None:
    segment = _segment()
    assert example_brought_in(segment, "Die Besprechung beginnt um neun Uhr.", EXAMPLES)
    assert example_brought_in(segment, REFERENCE + "\nDie Besprechung beginnt um 9 Uhr.", EXAMPLES)
    assert is_hallucination(_segment(target="es"), "La reunión comienza a las nueve.", EXAMPLES)
    assert not example_brought_in(segment, REFERENCE, EXAMPLES)
    # The source is like the example, or the human translators wrote words like it.
    assert not example_brought_in(
        _segment(source="The meeting starts at 9 o'clock."),
        "Die Besprechung beginnt um neun Uhr.",
        EXAMPLES,
    )
    assert not example_brought_in(
        _segment(reference="Die Besprechung beginnt um neun Uhr.\n" + REFERENCE),
        "Die Besprechung beginnt um neun Uhr.",
        EXAMPLES,
    )
    # A one-word example is left out: "Settings" may rightly be a title's translation.
    assert not is_hallucination(segment, "Einstellungen", EXAMPLES)
    # An example without the pair's languages is not used; a tag falls back to its language.
    assert not example_brought_in(
        _segment(target="fr"), "Die Besprechung beginnt um neun Uhr.", EXAMPLES
    )
    assert example_brought_in(_segment(target="zh-Hans"), "会议九点开始。", EXAMPLES)


def test_the_bundled_prompt_examples_are_read_from_the_templates() -> None:
    examples = prompt_examples()
    assert {"en": "File not found.", "de": "Datei nicht gefunden."}.items() <= next(
        e for e in examples if e["en"] == "File not found."
    ).items()
    # No human translation of a paragraph is like an example (the threshold's calibration).
    if paragraphs.installed():
        for paragraph in paragraphs.paragraphs():
            for tag, text in paragraph.translations.items():
                segment = _segment(paragraph.english, "", REQUEST_TAGS.get(tag, tag))
                assert not example_brought_in(segment, text, examples)
    assert len({e["en"] for e in examples}) == len(examples)


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [
        (_answer("x"), False),
        (_answer("x", reason=None), False),
        (_answer("x", reason="length"), True),
        (_answer("x", warnings=("echo",)), True),
    ],
)
def test_flagged_is_a_warning_or_an_unusual_finish(answer: Answer, flagged: bool) -> None:
    assert is_flagged(answer) is flagged


def _metrics(answers: list[Answer], segments: list[Segment] | None = None):
    segments = segments or [_segment()] * len(answers)
    verdicts = [
        check_translation(s.source, a.text, s.source_lang, s.target_lang, a.finish_reason)
        for s, a in zip(segments, answers, strict=True)
    ]
    return faithfulness(segments, answers, verdicts, EXAMPLES)


def test_rates_and_flagged_shares_over_the_answered_segments() -> None:
    metrics = _metrics(
        [
            _answer(REFERENCE),  # ratio 1
            _answer("Sie wissen.", warnings=("wrong_language",)),  # omission, flagged
            _answer("Sie wissen."),  # omission, not flagged
            _answer(REFERENCE * 3, reason="length"),  # too long, flagged
            _answer("", error="HTTP 504"),  # left out
        ]
    )
    assert metrics["omission_rate"] == 0.5 and metrics["omission_flagged"] == 0.5
    assert metrics["hallucination_rate"] == 0.25 and metrics["hallucination_flagged"] == 1.0
    assert metrics["length_ratio_median"] == round((1 + 11 / 74) / 2, 3)
    assert metrics["length_ratio_mean"] == round((1 + 2 * 11 / 74 + 3) / 4, 3)


def test_nothing_to_share_is_none_not_zero() -> None:
    metrics = _metrics([_answer(REFERENCE)])
    assert metrics["omission_rate"] == metrics["hallucination_rate"] == 0.0
    assert metrics["omission_flagged"] is None and metrics["hallucination_flagged"] is None
    assert _metrics([_answer("", error="timeout")])["length_ratio_median"] is None


def test_unflagged_failures_are_guarded_failures_without_a_warning() -> None:
    source = "Save and continue editing"
    segments = [_segment(source=source, reference="Sichern und weiter bearbeiten")] * 4
    metrics = _metrics(
        [
            _answer(source),  # echo, no warning: unflagged
            _answer(source, warnings=("echo",)),  # echo, warned
            _answer("", reason="stop"),  # empty, no warning: unflagged
            _answer("Sichern und weiter bearbeiten"),
        ],
        segments,
    )
    assert metrics["unflagged_failure_rate"] == 0.5


def test_scores_and_means_carry_the_set_and_its_seconds_per_1000_characters() -> None:
    segment = _segment()
    answers = [_answer(REFERENCE)]
    verdicts = [check_translation(segment.source, REFERENCE, "en", "de")]
    score = score_pair(
        "translate", "en-de", [segment], answers, verdicts, set_name="paragraph", examples=EXAMPLES
    )
    assert (score.set, score.source_chars) == ("paragraph", len(segment.source))
    assert score.faithfulness["length_ratio_mean"] == 1.0
    other = score_pair(
        "translate",
        "en-fr",
        [segment],
        [_answer("")],
        verdicts,
        set_name="paragraph",
        examples=EXAMPLES,
    )
    (mean,) = mean_scores([score, other], {("translate", "paragraph"): 3.0})
    assert (mean.set, mean.pairs) == ("paragraph", 2)
    assert mean.faithfulness["omission_rate"] == 0.5
    assert mean.faithfulness["omission_flagged"] == 0.0  # the one pair with omissions
    assert mean.faithfulness["hallucination_flagged"] is None
    assert mean.seconds_per_1k_chars == round(3000 / (2 * len(segment.source)), 2)
