"""Whether an answer translates all of its source and nothing else, told from the source and the
answer alone: the failures a small model makes on real text, silently.

- `omission`: much shorter than its source, against bounds calibrated on human translations
  per target language (`length_ratios.toml`, made by `quality.length_calibration`), or fewer
  than half of a source's three or more sentences.
- `addition`: much longer than its source, or more than twice its sentences plus one.
- `copied_example`: one of the prompt's own example translations (or close to one: a base
  model that loses the thread paraphrases them), for a source that is not that example.

Sources shorter than `MIN_JUDGED_CHARS` are not judged by length: a label's translation may
well be twice as long. A whole text of `LONG_TEXT_CHARS` or more is judged once more after its
pieces are put together (`text_omission`): each sentence may pass on its own while together
they lost much of the text, and over a long text people's length ratio varies far less.
Pure functions over text.
"""

from __future__ import annotations

import difflib
import math
import tomllib
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources

from translate_server.translation.segmentation.segments import sentence_boundaries

MIN_JUDGED_CHARS = 30
# Characters an answer may differ beyond the bounds: a word more or less in a short sentence
# is wording, not lost or made-up text.
SLACK_CHARS = 8
# Languages without calibration: as wide as the widest calibrated alphabetic languages.
DEFAULT_BOUNDS = (0.45, 2.4)
# An answer this close to an example's translation (difflib's ratio, casefolded) copies it,
# unless its source is at least `SOURCE_SIMILARITY` close to the example's source.
COPY_SIMILARITY = 0.6
SOURCE_SIMILARITY = 0.5
ENGLISH = "en"
# A whole text this long whose translation is under `TEXT_FACTOR` times the length people
# give it (the median ratio of the pair) lost text.
LONG_TEXT_CHARS = 200
TEXT_FACTOR = 0.55


@dataclass(frozen=True, slots=True)
class Ratio:
    """Translation length / English length, in characters, as people translate."""

    low: float
    median: float
    high: float


@cache
def _ratios() -> dict[str, Ratio]:
    text = (
        resources.files("translate_server.translation.guard")
        .joinpath("length_ratios.toml")
        .read_text()
    )
    return {
        tag: Ratio(table["low"], table["median"], table["high"])
        for tag, table in tomllib.loads(text).items()
    }


_ENGLISH_RATIO = Ratio(1.0, 1.0, 1.0)  # English against itself: the calibration's base


def _primary(tag: str) -> str:
    return tag.split("-", 1)[0]


def _ratio(tag: str) -> Ratio | None:
    """The calibrated ratio of `tag` ("zh-Hans", else "zh") to English; None if unmeasured."""
    if _primary(tag) == ENGLISH:
        return _ENGLISH_RATIO
    ratios = _ratios()
    return ratios.get(tag) or ratios.get(_primary(tag))


def length_bounds(source_lang: str, target_lang: str) -> tuple[float, float]:
    """(low, high) of answer length / source length for a translation between the two."""
    source, target = _ratio(source_lang), _ratio(target_lang)
    if _primary(source_lang) == _primary(target_lang) or source is None or target is None:
        return DEFAULT_BOUNDS
    if source is _ENGLISH_RATIO:
        return target.low, target.high
    if target is _ENGLISH_RATIO:
        # Into English the calibrated ratio inverts: a low German/English is a high English/German.
        return 1 / source.high, 1 / source.low
    # Neither side English: the medians give the expected ratio, the wider spread its width.
    expected = math.log(target.median / source.median)
    spread = max(math.log(r.high / r.median) for r in (source, target))
    below = max(math.log(r.median / r.low) for r in (source, target))
    return math.exp(expected - below), math.exp(expected + spread)


def expected_ratio(source_lang: str, target_lang: str) -> float:
    """The median length of people's translations between the two, per source character."""
    source, target = _ratio(source_lang), _ratio(target_lang)
    if source is None or target is None or _primary(source_lang) == _primary(target_lang):
        return 1.0
    return target.median / source.median


def text_omission(source_chars: int, answer_chars: int, source_lang: str, target_lang: str) -> bool:
    """Whether a whole text's translation is much shorter than people make it."""
    return (
        source_chars >= LONG_TEXT_CHARS
        and answer_chars < TEXT_FACTOR * expected_ratio(source_lang, target_lang) * source_chars
    )


def sentence_count(text: str) -> int:
    return sum(1 for _ in sentence_boundaries(text.strip())) + 1 if text.strip() else 0


def length_failure(source: str, answer: str, source_lang: str, target_lang: str) -> str | None:
    """ "omission", "addition" or None, by length and by sentences."""
    if not answer.strip():
        return None  # empty: a failure of its own
    if len(source.strip()) >= MIN_JUDGED_CHARS:
        low, high = length_bounds(source_lang, target_lang)
        source_chars, answer_chars = len(source.strip()), len(answer.strip())
        if answer_chars < low * source_chars - SLACK_CHARS:
            return "omission"
        if answer_chars > high * source_chars + SLACK_CHARS:
            return "addition"
    source_sentences, answer_sentences = sentence_count(source), sentence_count(answer)
    if source_sentences >= 3 and 2 * answer_sentences < source_sentences:
        return "omission"
    if answer_sentences > 2 * source_sentences + 1:
        return "addition"
    return None


def _folded(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def copies_example(source: str, answer: str, examples: Iterable[tuple[str, str]]) -> bool:
    """Whether `answer` is, or is close to, the translation of an example (source, target)
    that `source` is not."""
    folded_answer, folded_source = _folded(answer), _folded(source)
    if not folded_answer:
        return False
    for example_source, example_target in examples:
        target = _folded(example_target)
        if len(target.split()) < 2 and len(folded_source.split()) < 3:
            continue  # a one-word example may be the right answer to a short text
        close = target == folded_answer or (
            len(target.split()) >= 2
            and difflib.SequenceMatcher(None, folded_answer, target).ratio() >= COPY_SIMILARITY
        )
        if (
            close
            and difflib.SequenceMatcher(None, folded_source, _folded(example_source)).ratio()
            < SOURCE_SIMILARITY
        ):
            return True
    return False


def example_pairs(
    examples: Iterable[Mapping[str, str]], source_tag: str, target_tag: str
) -> tuple[tuple[str, str], ...]:
    """The (source, target) sentences of the examples a prompt for the pair shows."""
    pairs = []
    for example in examples:
        source = example.get(source_tag) or example.get(source_tag.split("-", 1)[0])
        target = example.get(target_tag) or example.get(target_tag.split("-", 1)[0])
        if source is not None and target is not None:
            pairs.append((source, target))
    return tuple(pairs)
