"""The language check's letter count, against the per-character rule it implements."""

from __future__ import annotations

import pytest

from translate_server.translation.guard.checks import MIN_LETTERS, judged_text, letter_weight


def _by_character(text: str) -> int:
    def cjk(c: str) -> bool:
        return (
            "\u2e80" <= c <= "\u9fff"
            or "\uac00" <= c <= "\ud7af"
            or "\uf900" <= c <= "\ufaff"
            or "\uff66" <= c <= "\uff9f"
        )

    return sum(3 if cjk(c) else 1 for c in text if c.isalpha())


@pytest.mark.parametrize(
    "text",
    [
        "",
        "12 345, !?",
        "Where is the station?",
        "東京駅はどこですか。",  # kana and kanji, with CJK punctuation that is no letter
        "서울역은 어디에 있나요?",
        "ｶﾀｶﾅ and ａｂｃ fullwidth",
        "Mixed 中文 text, ελληνικά, русский, عربي 😀",
        "〇〆々 ⺀ 丽",
    ],
)
def test_letter_weight_counts_as_the_per_character_rule(text: str) -> None:
    assert letter_weight(text) == _by_character(text)


def test_short_answers_are_not_judged() -> None:
    assert judged_text("Ja, gut.") is None
    assert judged_text("東京駅はどこ") == "東京駅はどこ"  # 6 CJK letters weigh 18
    assert letter_weight("abcdefghijk") < MIN_LETTERS <= letter_weight("abcdefghijkl")
