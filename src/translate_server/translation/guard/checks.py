"""What is wrong with a translation, told from the source and the answer alone (no reference):
the classic failures of small LLM translators.

- `empty`: nothing, or only whitespace, for a source with text.
- `echo`: the source sent back (compared casefolded, NFKC, whitespace and edge punctuation
  ignored), judged only when source and target languages differ and the source has letters.
- `wrong_language`: the detector is confident the answer is in another language than the
  target. Short texts are unreliable, so only answers with `MIN_LETTERS` letters after
  placeholders, URLs and numbers are removed are judged, and only when the detector gives the
  target language almost no chance (see `LanguageJudge`).
- `placeholders_lost`: fewer of some placeholder than the source has (see placeholders.py).
- `commentary`: a preamble ("Here is the translation:", "Translation:") or a line of notes
  ("Note: ...", "I hope this helps") that the source itself does not have. Conservative: a
  translation that merely starts with a colon-ended word is not flagged.
- `truncated`: the engine stopped at `max_tokens` (finish_reason "length").
- `omission`, `addition`: much shorter or longer than the source, or far from its number of
  sentences; `copied_example`: a prompt example's translation instead of the source's
  (completeness.py).

Pure functions over text; the language detector is passed in.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from enum import StrEnum
from functools import lru_cache
from typing import Protocol

import langcodes
import msgspec

from translate_server.text.placeholders import lost_placeholders, strip_placeholders
from translate_server.translation.guard.completeness import copies_example, length_failure


class FailureKind(StrEnum):
    EMPTY = "empty"
    ECHO = "echo"
    WRONG_LANGUAGE = "wrong_language"
    PLACEHOLDERS_LOST = "placeholders_lost"
    COMMENTARY = "commentary"
    TRUNCATED = "truncated"
    OMISSION = "omission"
    ADDITION = "addition"
    COPIED_EXAMPLE = "copied_example"


FAILURE_KINDS: tuple[FailureKind, ...] = tuple(FailureKind)


class Verdict(msgspec.Struct, frozen=True, kw_only=True):
    failures: tuple[FailureKind, ...] = ()
    lost_placeholders: tuple[str, ...] = ()
    detected_language: str | None = None  # the language found instead of the target

    @property
    def ok(self) -> bool:
        return not self.failures


class _Tagged(Protocol):
    @property
    def tag(self) -> str: ...


class Candidate(Protocol):
    """One language guess, as detection.py's `Detection`: `language.tag`, `confidence` 0..1."""

    @property
    def language(self) -> _Tagged: ...

    @property
    def confidence(self) -> float: ...


class Detector(Protocol):
    def candidates(self, text: str, limit: int = 3) -> Sequence[Candidate]: ...


@lru_cache(maxsize=1024)  # a few tags, asked about several times for every answer
def base_language(tag: str) -> str:
    """`zh-Hans` -> `zh`, `pt_BR` -> `pt`."""
    return langcodes.Language.get(tag.replace("_", "-")).language or tag.lower()


# -- echo ---------------------------------------------------------------------------------


def _normalized(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    text = re.sub(r"\s+", " ", text).strip()
    return text.strip(" .,;:!?¡¿'\"“”‘’«»„‚()[]")


def is_echo(source: str, answer: str) -> bool:
    return any(c.isalpha() for c in source) and _normalized(source) == _normalized(answer)


# -- language --------------------------------------------------------------------------------

MIN_LETTERS = 12  # letters of an alphabetic script; each CJK character counts as 3
# (confidence of the language found instead, largest confidence left to the target) per
# detector accuracy, calibrated on Django's catalogs (docs/quality.md): a human translation
# is flagged in 0.2% (high) and 0.9% (low) of cases, an untranslated source caught in 74% and
# 73%. The low-accuracy detector is surer of itself, so it must be surer still.
THRESHOLDS = {"high": (0.3, 0.05), "low": (0.9, 0.02)}

_NOISE = re.compile(r"https?://\S+|\S+@\S+\.\w+|<[^>]{1,200}>|&\w+;|\d+")
_CJK_LANGUAGES = frozenset({"zh", "ja", "ko"})
_KANA = re.compile(r"[\u3040-\u30ff]")


_CJK = re.compile("[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]+")


def letter_weight(text: str) -> int:
    """Letters of `text`, each CJK letter counting 3 (C-level counting: this runs on every
    answer, and a per-character Python loop cost more than the rest of the check)."""
    letters = sum(map(str.isalpha, text))
    cjk = "".join(_CJK.findall(text))
    return letters + 2 * sum(map(str.isalpha, cjk)) if cjk else letters


@lru_cache(maxsize=16)
def judged_text(answer: str) -> str | None:
    """The words of `answer` to detect the language of, or None when too little is left.

    Remembered for the few latest answers: the guard and its judge both ask about each."""
    text = _NOISE.sub(" ", strip_placeholders(answer))
    return text if letter_weight(text) >= MIN_LETTERS else None


class LanguageJudge:
    """Says when an answer is confidently in another language than the target."""

    def __init__(self, detector: Detector, accuracy: str = "low") -> None:
        self.detector = detector
        self.min_confidence, self.max_target_confidence = THRESHOLDS[accuracy]

    def wrong_language(self, answer: str, target_lang: str) -> str | None:
        """The language found instead of `target_lang`, or None (right, or not sure)."""
        text = judged_text(answer)
        if text is None:
            return None
        found = self.detector.candidates(text, 10)
        if not found:
            return None
        target = base_language(target_lang)
        best = base_language(found[0].language.tag)
        if target in _CJK_LANGUAGES and best != target and not _CJK.search(text):
            return best  # a dozen letters and not one character of the target's script
        if best == target or found[0].confidence < self.min_confidence:
            return None
        if target == "ja" and best == "zh" and not _KANA.search(text):
            return None  # Japanese written in kanji alone reads as Chinese
        target_confidence = sum(
            c.confidence for c in found if base_language(c.language.tag) == target
        )
        return best if target_confidence <= self.max_target_confidence else None


# -- commentary -----------------------------------------------------------------------------

_PREAMBLE = re.compile(
    r"^\W*(?:(?:sure|certainly|of course|okay)\b.{0,40}?)?"
    r"(?:here(?:'s|’s| is| are)\b.{0,60}?\btranslat"
    r"|(?:the\s+)?(?:\w+\s+){0,2}?translation(?:\s+(?:of|in|into|to|from)\s+[^:\n]{0,40})?\s*(?:is\s*)?:"
    r"|translated(?:\s+text)?\s*:"
    r"|(?:traducción|traduction|übersetzung|traduzione|翻译|翻訳|訳)\s*[:：])",
    re.IGNORECASE,
)
_NOTE_LINE = re.compile(
    r"^\W*(?:note|notes|explanation|translator'?s note|nota|remarque|hinweis|anmerkung"
    r"|注意|注|备注|説明)\s*[:：]"
    r"|^\W*(?:i hope this helps|let me know if|this translation\b|the translation (?:above|keeps"
    r"|preserves|maintains|is)\b|the (?:original|source) text\b|(?:literally|wörtlich)\s*[:,])",
    re.IGNORECASE,
)


def has_commentary(source: str, answer: str) -> bool:
    lines = [line for line in answer.strip().splitlines() if line.strip()]
    if not lines:
        return False
    source_lines = [line for line in source.strip().splitlines() if line.strip()]
    if _PREAMBLE.search(lines[0]) and not any(_PREAMBLE.search(s) for s in source_lines):
        return True
    if any(_NOTE_LINE.search(s) for s in source_lines):
        return False
    return any(_NOTE_LINE.search(line) for line in lines)


# -- all of them ----------------------------------------------------------------------------


def check_translation(
    source: str,
    answer: str,
    source_lang: str,
    target_lang: str,
    finish_reason: str | None = None,
    *,
    judge: LanguageJudge | None = None,
    examples: Sequence[tuple[str, str]] = (),
) -> Verdict:
    """Every failure of `answer` as a translation of `source`; without a `judge`, the language
    is not checked; `examples` are the (source, translation) pairs the prompt showed."""
    failures: list[FailureKind] = []
    if finish_reason == "length":
        failures.append(FailureKind.TRUNCATED)
    if source.strip() and not answer.strip():
        return Verdict(
            failures=(FailureKind.EMPTY, *failures),
            lost_placeholders=tuple(lost_placeholders(source, "")),
        )
    if base_language(source_lang) != base_language(target_lang) and is_echo(source, answer):
        failures.append(FailureKind.ECHO)
    detected = None
    if judge is not None:
        detected = judge.wrong_language(answer, target_lang)
        if detected is not None:
            failures.append(FailureKind.WRONG_LANGUAGE)
    lost = tuple(lost_placeholders(source, answer))
    if lost:
        failures.append(FailureKind.PLACEHOLDERS_LOST)
    if has_commentary(source, answer):
        failures.append(FailureKind.COMMENTARY)
    if length := length_failure(source, answer, source_lang, target_lang):
        failures.append(FailureKind(length))
    if examples and copies_example(source, answer, examples):
        failures.append(FailureKind.COPIED_EXAMPLE)
    order = {kind: i for i, kind in enumerate(FAILURE_KINDS)}
    return Verdict(
        failures=tuple(sorted(failures, key=order.__getitem__)),
        lost_placeholders=lost,
        detected_language=detected,
    )
