"""The failure checks: each kind on its own, what must not be flagged, and the language judge
against a stub detector (thresholds) and the real one (on Django's human translations)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from translate_server.text.detection import LanguageDetection
from translate_server.translation.guard.checks import (
    THRESHOLDS,
    FailureKind,
    LanguageJudge,
    check_translation,
    has_commentary,
    is_echo,
)

K = FailureKind


def kinds(
    source: str,
    answer: str,
    source_lang: str = "en",
    target_lang: str = "de",
    finish_reason: str | None = "stop",
    judge: LanguageJudge | None = None,
) -> set[K]:
    verdict = check_translation(
        source, answer, source_lang, target_lang, finish_reason, judge=judge
    )
    return set(verdict.failures)


def test_a_good_translation_has_no_failure() -> None:
    assert kinds("Change password: %s", "Passwort ändern: %s") == set()


def test_empty_answer() -> None:
    assert kinds("Hello", "  \n") == {K.EMPTY}
    assert kinds("", "") == set()


def test_echo_is_compared_loosely_and_only_across_languages() -> None:
    assert kinds("Save and continue", "save  and continue.") == {K.ECHO}
    assert kinds("Save", "Save", "en", "en-GB") == set()  # same language: not an echo
    assert kinds("Save", "Save", "zh-Hans", "zh") == set()
    assert kinds("2024", "2024") == set()  # nothing to translate
    assert is_echo("Date :", "Date:") and not is_echo("Date", "Datum")


def test_placeholders_lost_lists_them() -> None:
    verdict = check_translation("%(count)s of %(total)s", "%(count)s von insgesamt", "en", "de")
    assert verdict.failures == (K.PLACEHOLDERS_LOST,)
    assert verdict.lost_placeholders == ("%(total)s",)


def test_cut_off_by_max_tokens() -> None:
    assert kinds("Hello world", "Hallo", finish_reason="length") == {K.TRUNCATED}
    assert kinds("Hello world", "", finish_reason="length") == {K.EMPTY, K.TRUNCATED}


@pytest.mark.parametrize(
    "answer",
    [
        "Here is the translation: Hallo Welt",
        "Sure! Here's the German translation:\nHallo Welt",
        "Translation: Hallo Welt",
        "German translation: Hallo Welt",
        "The translation is: Hallo Welt",
        "Traducción: Hola mundo",
        "Hallo Welt\n\nNote: this is the informal greeting.",
        "Hallo Welt\n(Note: literally 'hello world')",
        "Hallo Welt\nI hope this helps!",
        "Hallo Welt\nThis translation keeps the tone.",
    ],
)
def test_commentary_is_flagged(answer: str) -> None:
    assert has_commentary("Hello world", answer)


@pytest.mark.parametrize(
    ("source", "answer"),
    [
        ("Hello world", "Hallo Welt"),
        ("Translation of the page", "Übersetzung der Seite"),
        (
            "Note: passwords are case-sensitive.",
            "Hinweis: Passwörter unterscheiden Groß-/Kleinschreibung.",
        ),
        (
            "Note: passwords are case-sensitive.",
            "Note : les mots de passe sont sensibles à la casse.",
        ),
        ("Translation: %s", "Übersetzung: %s"),
        ("Date:", "Datum:"),
    ],
)
def test_translations_of_such_words_are_not_commentary(source: str, answer: str) -> None:
    assert not has_commentary(source, answer)


# -- language -------------------------------------------------------------------------------


@dataclass
class _Lang:
    tag: str


@dataclass
class _Candidate:
    language: _Lang
    confidence: float


class StubDetector:
    def __init__(self, *guesses: tuple[str, float]) -> None:
        self.guesses = [_Candidate(_Lang(tag), confidence) for tag, confidence in guesses]
        self.calls: list[str] = []

    def candidates(self, text: str, limit: int = 3) -> list[_Candidate]:
        self.calls.append(text)
        return self.guesses[:limit]


def test_wrong_language_needs_a_confident_detector_and_no_chance_for_the_target() -> None:
    low, low_target = THRESHOLDS["low"]
    sure = LanguageJudge(StubDetector(("en", low), ("de", low_target)), "low")
    assert kinds("Good morning to everybody", "Good morning to all of you", judge=sure) == {
        K.WRONG_LANGUAGE
    }
    unsure = LanguageJudge(StubDetector(("en", low - 0.01), ("de", 0.0)), "low")
    assert kinds("Good morning to everybody", "Good morning to all of you", judge=unsure) == set()
    target_possible = LanguageJudge(StubDetector(("en", 0.95), ("de", low_target + 0.01)), "low")
    assert kinds("Good morning everybody", "Guten Morgen an alle", judge=target_possible) == set()
    right = LanguageJudge(StubDetector(("de", 1.0)), "low")
    verdict = check_translation(
        "Good morning everybody", "Guten Morgen an alle", "en", "de-AT", judge=right
    )
    assert verdict.ok and verdict.detected_language is None


def test_short_text_numbers_and_placeholders_are_not_judged() -> None:
    detector = StubDetector(("en", 1.0))
    judge = LanguageJudge(detector, "low")
    for answer in ("Save", "%(count)s %(name)s 12345 {x}", "https://example.org/a/b/c/d"):
        assert judge.wrong_language(answer, "de") is None
    assert detector.calls == []
    assert judge.wrong_language("Gespeichert am 12.05.2024 um 10:30", "fr") == "en"
    assert "12" not in detector.calls[-1]


def test_kanji_only_japanese_is_not_called_chinese_but_no_cjk_at_all_is_wrong() -> None:
    judge = LanguageJudge(StubDetector(("zh", 1.0)), "high")
    assert judge.wrong_language("浮動小数点数値", "ja") is None
    assert judge.wrong_language("パスワードを変更してください", "ja") == "zh"
    latin = LanguageJudge(StubDetector(("en", 0.2), ("zh", 0.1)), "high")
    assert latin.wrong_language("Change your password", "zh-Hans") == "en"


def test_real_detector_rarely_flags_human_translations_and_catches_untranslated_text() -> None:
    from translate_server.quality.datasets import DEFAULT_PAIRS, load_sets

    judge = LanguageJudge(LanguageDetection("low"), "low")
    flagged = caught = judged = total = 0
    for test_set in load_sets(DEFAULT_PAIRS, 150, seed=1):
        for segment in test_set.segments:
            total += 1
            flagged += judge.wrong_language(segment.reference, segment.target_lang) is not None
            if judge.wrong_language(segment.source, segment.source_lang) is None:
                judged += 1  # the source is in its own language: now ask for the target's
                caught += judge.wrong_language(segment.source, segment.target_lang) is not None
    assert flagged / total <= 0.03
    assert caught / judged >= 0.5


# -- property-based --------------------------------------------------------------------------


@settings(deadline=None)  # a shared CPU must not turn slowness into failure
@given(st.text(min_size=1).filter(lambda s: any(c.isalpha() for c in s)))
def test_any_text_sent_back_is_an_echo_and_never_empty(text: str) -> None:
    found = kinds(text, text, "en", "ja")
    assert K.ECHO in found or not text.strip()
    assert K.EMPTY not in found


@settings(deadline=None)  # a shared CPU must not turn slowness into failure
@given(st.text(), st.text())
def test_checks_never_fail_on_any_input(source: str, answer: str) -> None:
    verdict = check_translation(source, answer, "fr", "en", None)
    assert K.TRUNCATED not in verdict.failures
    assert (K.EMPTY in verdict.failures) == (bool(source.strip()) and not answer.strip())
