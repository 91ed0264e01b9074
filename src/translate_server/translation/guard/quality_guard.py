"""The guard after generation: what the model answered, checked before it is sent.

A piece's protected spans are masked before the model sees them (masking.py) and restored in
its answer; the answer is then checked (checks.py) for the failures a retry can fix:

- `empty`: nothing for a source with text; an answer of made-up tags alone (`<text>`,
  `<span class="text-white">`) that the source does not have counts as nothing.
- `echo`: the source sent back, when source and target languages differ.
- `wrong_language`: confidently in another language than the target (checks.LanguageJudge),
  or left in the source language: the detector gives the source at least `SOURCE_LANGUAGE`
  and the target at most 0.02. Only answers with enough letters are judged
  (checks.MIN_LETTERS), and not when the answer is already an echo.
- `placeholders_lost`: a protected span whose token the answer lost.
- `omission`, `addition`: much shorter or longer than the source (bounds per language pair,
  calibrated on human translations), or far from its number of sentences; `copied_example`:
  one of the prompt's example translations instead (completeness.py).

A piece of several sentences that omitted, added or copied is translated again finer, a
sentence per engine request (pieces.py). On any failure of a single sentence, and on a first
answer that ran away to the service's own token budget (`truncated`), the piece gets ONE more
engine request with other sampling (`RETRY_SAMPLING`), and the better of the two answers is
kept. What is still wrong is reported in `warnings`; spans still lost are appended to the
answer, so none is ever missing. An answer still empty after the retry is replaced by the
source, with the warning `empty`: an empty string is never a success.

Pure decisions; pieces.py runs the engine requests.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import msgspec

from translate_server.text.masking import DEFAULT_STYLE, Masked, mask
from translate_server.translation.guard.checks import (
    FAILURE_KINDS,
    Candidate,
    Detector,
    FailureKind,
    LanguageJudge,
    base_language,
    check_translation,
    judged_text,
)
from translate_server.translation.guard.completeness import example_pairs

# Failures a second try may fix, and how bad each is when choosing between two answers: a
# lost span is appended back, an answer in the wrong language is at least an answer.
_WEIGHTS = {
    FailureKind.EMPTY: 8,
    FailureKind.COPIED_EXAMPLE: 8,  # as good as nothing: it translates another text
    FailureKind.OMISSION: 5,
    FailureKind.ECHO: 4,
    FailureKind.WRONG_LANGUAGE: 3,
    FailureKind.ADDITION: 3,
    FailureKind.PLACEHOLDERS_LOST: 1,
}
# Failures of completeness: a piece of several sentences is split into sentences for them.
INCOMPLETE: frozenset[FailureKind] = frozenset(
    {FailureKind.OMISSION, FailureKind.ADDITION, FailureKind.COPIED_EXAMPLE}
)
GUARDED_KINDS: tuple[FailureKind, ...] = tuple(k for k in FAILURE_KINDS if k in _WEIGHTS)
# An answer cut off at max_tokens counts against it when choosing: the retry's repetition
# penalty makes runaways, and one of those must not replace a first answer that only lost a
# placeholder (appended) or tie with one in the wrong language (docs/quality.md has it
# measured). A first answer cut off at the service's own budget (three times the source's
# tokens) ran away, and is retried; one cut off at the caller's `max_tokens` is not.
_CUT_OFF_WEIGHT = 3
# The retry: a little randomness, seeded so that it repeats, and a repetition penalty, which
# falls on the prompt's own tokens: what an echo copies. It also falls on the end-of-turn
# token the prompt has, so retried answers run to max_tokens more often; without it the retry
# rarely fixes an echo (docs/quality.md has the three settings measured).
RETRY_SAMPLING = {"temperature": 0.3, "seed": 1, "repetition_penalty": 1.15}

# Left in the source language (docs/quality.md): on Django's catalogs, added to the judge's
# rule, human translations flagged 40 -> 50 of 2,950, untranslated sources caught 73% -> 84%.
SOURCE_LANGUAGE = 0.3
_TARGET_AT_MOST = 0.02

# An answer of nothing but tags (`<text>`, `<span class="x"></span>`).
_LONE_TAG = re.compile(r"(?:\s*</?[A-Za-z][\w:-]{0,30}(?:\s[^<>]{0,200})?/?>)+\s*")


class Review(msgspec.Struct, frozen=True):
    """One answer, unmasked and checked."""

    text: str
    failures: tuple[FailureKind, ...] = ()
    lost: tuple[str, ...] = ()  # protected spans the answer lost
    cut_off: bool = False  # the engine stopped it at max_tokens
    # The detector's confidence in the target language, where it judged the answer (enough
    # letters, not an echo, languages that differ): a signal of the quality estimate.
    language_confidence: float | None = None

    @property
    def badness(self) -> int:
        return sum(_WEIGHTS[kind] for kind in self.failures) + self.cut_off * _CUT_OFF_WEIGHT

    def retry_for(self, budget_is_ours: bool) -> tuple[FailureKind, ...]:
        """What a second try is for: nothing when the answer passed."""
        ran_away = (FailureKind.TRUNCATED,) if self.cut_off and budget_is_ours else ()
        return (*self.failures, *ran_away)


class Outcome(msgspec.Struct, frozen=True):
    """What is sent: the chosen answer, repaired, and what is still wrong with it."""

    text: str
    warnings: tuple[str, ...]
    chosen: int  # which attempt


class Guard:
    def __init__(
        self,
        detector: Detector,
        accuracy: str = "low",
        style: str = DEFAULT_STYLE,
        examples: Sequence[Mapping[str, str]] = (),
    ) -> None:
        self.detector = _LastAnswer(detector)
        self.judge = LanguageJudge(self.detector, accuracy)
        self.style = style
        self.examples = tuple(examples)  # the prompt's example sentences (completion prompts)
        self._pairs: dict[tuple[str, str], tuple[tuple[str, str], ...]] = {}

    def mask(self, text: str, text_format: str) -> Masked:
        # In HTML the parser has decoded entities already: `&amp;` there is text.
        return mask(text, entities=text_format == "text", style=self.style)

    def review(
        self,
        source: str,
        masked: Masked,
        answer: str,
        source_lang: str,
        target_lang: str,
        *,
        cut_off: bool = False,
    ) -> Review:
        unmasked = masked.unmask(answer)
        text = unmasked.text
        if _LONE_TAG.fullmatch(text) and text.strip() not in source:
            text = ""
        verdict = check_translation(
            source,
            text,
            source_lang,
            target_lang,
            examples=self._examples(source_lang, target_lang),
        )
        failures = {kind for kind in verdict.failures if kind in _WEIGHTS}
        if unmasked.lost:
            failures.add(FailureKind.PLACEHOLDERS_LOST)
        confidence = None
        if (
            text
            and not failures & {FailureKind.ECHO}
            and base_language(source_lang) != base_language(target_lang)
        ):
            wrong, confidence = self._wrong_language(text, source_lang, target_lang)
            if wrong:
                failures.add(FailureKind.WRONG_LANGUAGE)
        return Review(
            text,
            tuple(k for k in GUARDED_KINDS if k in failures),
            unmasked.lost,
            cut_off,
            confidence,
        )

    def _examples(self, source_lang: str, target_lang: str) -> tuple[tuple[str, str], ...]:
        pair = (source_lang, target_lang)
        if pair not in self._pairs:
            self._pairs[pair] = example_pairs(self.examples, source_lang, target_lang)
        return self._pairs[pair]

    def _wrong_language(
        self, text: str, source_lang: str, target_lang: str
    ) -> tuple[bool, float | None]:
        """Whether the answer is in the wrong language, and the detector's confidence in the
        target's (None where the answer is too short to judge)."""
        judged = judged_text(text)
        if judged is None:
            return False, None
        wrong = self.judge.wrong_language(text, target_lang) is not None
        confidence: dict[str, float] = {}
        for found in self.detector.candidates(judged, 10):  # the judge's call, remembered
            language = base_language(found.language.tag)
            confidence[language] = confidence.get(language, 0.0) + found.confidence
        target = confidence.get(base_language(target_lang), 0.0)
        left_in_source = (
            confidence.get(base_language(source_lang), 0.0) >= SOURCE_LANGUAGE
            and target <= _TARGET_AT_MOST
        )
        return wrong or left_in_source, target

    @staticmethod
    def choose(source: str, reviews: Sequence[Review]) -> Outcome:
        """The least bad answer (the first on a tie: greedy before sampled), repaired."""
        index = min(range(len(reviews)), key=lambda i: (reviews[i].badness, i))
        best = reviews[index]
        if not best.text.strip():
            # Untranslated rather than nothing (spans and all); `empty` says so.
            return Outcome(source, (str(FailureKind.EMPTY),), index)
        text = " ".join([best.text.rstrip(), *best.lost]) if best.lost else best.text
        return Outcome(text, tuple(str(kind) for kind in best.failures), index)


class _LastAnswer:
    """The detector, remembering its last answer: the guard asks twice about the same text."""

    def __init__(self, detector: Detector) -> None:
        self.detector = detector
        self.last: tuple[str, int, Sequence[Candidate]] | None = None

    def candidates(self, text: str, limit: int = 3) -> Sequence[Candidate]:
        if self.last is not None and self.last[0] == text and self.last[1] == limit:
            return self.last[2]
        found = self.detector.candidates(text, limit)
        self.last = (text, limit, found)
        return found
