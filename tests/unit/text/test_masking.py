from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from translate_server.text.masking import STYLES, mask, protected_spans

EVERY_KIND = [
    "%s",
    "%1$s",
    "%.2f",
    "%d",
    "%%",
    "%(name)s",
    "{name}",
    "{0}",
    "{count}",
    "{count, plural, one {# file} other {# files}}",
    "https://example.org/a?b=1",
    "ops@example.com",
    "`make test`",
    "&amp;",
    "&#160;",
]


@pytest.mark.parametrize("span", EVERY_KIND)
def test_each_kind_is_masked_and_restored(span: str) -> None:
    masked = mask(f"Before {span} after.")
    assert span not in masked.text
    assert masked.text == "Before {1} after."
    assert masked.unmask("Vorher {1} danach.").text == f"Vorher {span} danach."


def test_spans_come_back_in_the_order_the_answer_puts_them() -> None:
    masked = mask("Copy %(src)s to %(dst)s, see https://example.org.")
    assert masked.text == "Copy {1} to {2}, see {3}."
    restored = masked.unmask("Siehe {3}: {2} aus {1} kopieren.")
    assert restored.text == "Siehe https://example.org: %(dst)s aus %(src)s kopieren."
    assert restored.lost == ()


def test_a_lost_token_is_reported_and_a_repeated_one_dropped() -> None:
    masked = mask("%s of %d files")
    restored = masked.unmask("{1} {1} von Dateien")
    assert restored.text == "%s von Dateien"
    assert restored.lost == ("%d",)


def test_tokens_the_model_mangled_a_little_still_count() -> None:
    assert mask("Hi %s").unmask("Hallo { 1 }").text == "Hallo %s"
    assert mask("Hi %s").unmask("Hallo {{1}}").text == "Hallo %s"
    assert mask("Hi %s", style="xml").unmask("Hallo <X1>").text == "Hallo %s"


def test_entities_are_left_alone_outside_plain_text() -> None:
    assert mask("Fish &amp; chips", entities=False).spans == ()


def test_a_url_keeps_its_brace_and_trailing_punctuation_is_not_taken() -> None:
    text = "See https://example.org/{id}/x. Then %s."
    assert [text[a:b] for a, b in protected_spans(text)] == ["https://example.org/{id}/x", "%s"]


def test_tokens_the_model_made_up_are_dropped() -> None:
    assert mask("Hi %s").unmask("{1} und {7}").text == "%s und"
    assert mask("Hi").unmask("Hallo {1}").text == "Hallo {1}"  # nothing was masked


# -- any text, any placeholders -----------------------------------------------------------

_WORDS = st.text(
    alphabet=st.characters(categories=("L", "Zs"), exclude_characters="`&@"), max_size=12
)


@st.composite
def texts_with_spans(draw: st.DrawFn) -> tuple[str, list[str]]:
    spans = draw(st.lists(st.sampled_from(EVERY_KIND), max_size=6))
    words = draw(st.lists(_WORDS, min_size=len(spans) + 1, max_size=len(spans) + 1))
    # Spaces around each span keep it whole (a word glued to a URL would become part of it).
    text = words[0] + "".join(
        f" {span} {word}" for span, word in zip(spans, words[1:], strict=True)
    )
    return text, spans


@settings(deadline=None, max_examples=300)  # a shared CPU must not turn slowness into failure
@given(
    texts_with_spans(), st.randoms(use_true_random=False), st.sampled_from(sorted(STYLES)), _WORDS
)
def test_any_placeholders_come_back_exactly_once(
    case: tuple[str, list[str]], rng, style: str, filler: str
) -> None:
    text, spans = case
    masked = mask(text, style=style)
    token = STYLES[style][0]
    tokens = [token % (i + 1) for i in range(len(masked.spans))]
    rng.shuffle(tokens)
    answer = filler + " " + " ".join(f"{t} {filler}" for t in tokens)
    restored = masked.unmask(answer)
    assert restored.lost == ()
    assert Counter(masked.spans) == Counter(spans)  # every span masked, nothing else
    for span in spans:
        assert restored.text.count(span) == spans.count(span)


@settings(deadline=None, max_examples=200)
@given(texts_with_spans(), st.data())
def test_an_answer_short_of_tokens_reports_exactly_the_lost_spans(
    case: tuple[str, list[str]], data: st.DataObject
) -> None:
    masked = mask(case[0])
    kept = data.draw(st.lists(st.integers(1, max(1, len(masked.spans))), unique=True))
    kept = [n for n in kept if n <= len(masked.spans)]
    restored = masked.unmask(" ".join(f"{{{n}}}" for n in kept))
    assert Counter(restored.lost) == Counter(
        span for i, span in enumerate(masked.spans, 1) if i not in kept
    )
