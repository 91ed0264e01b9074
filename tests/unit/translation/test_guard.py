"""The guard's decisions: what it calls a failure, which answer it keeps, how it repairs."""

from dataclasses import dataclass

from translate_server.text.masking import Masked
from translate_server.translation.guard.checks import FailureKind as K
from translate_server.translation.guard.quality_guard import Guard, Review


@dataclass(frozen=True)
class _Lang:
    tag: str


@dataclass(frozen=True)
class _Guess:
    language: _Lang
    confidence: float


class StubDetector:
    """Calls everything English, surely; counts its calls."""

    def __init__(self, tag: str = "en") -> None:
        self.tag = tag
        self.calls = 0

    def candidates(self, text: str, limit: int = 3) -> list[_Guess]:
        self.calls += 1
        return [_Guess(_Lang(self.tag), 1.0)]


def review(
    source: str,
    answer: str,
    *,
    detector: StubDetector | None = None,
    source_lang: str = "en",
    target_lang: str = "de",
) -> Review:
    guard = Guard(detector or StubDetector("de"))
    masked = guard.mask(source, "text")
    return guard.review(source, masked, answer, source_lang, target_lang)


def test_a_good_answer_passes() -> None:
    assert review("Save the file %s", "Datei {1} speichern").failures == ()


def test_empty_echo_and_lone_tag() -> None:
    assert review("Good morning", "").failures == (K.EMPTY,)
    assert review("Good morning", "  <text> ").failures == (K.EMPTY,)
    assert review("Good morning", '<span class="text-white"></span>').failures == (K.EMPTY,)
    assert review("Good morning", "Good morning.").failures == (K.ECHO,)
    # The same language on both sides is not an echo.
    assert review("Good morning", "Good morning", target_lang="en").failures == ()


def test_a_tag_the_source_has_is_a_fair_answer() -> None:
    assert review("Press <kbd> to go on", "<kbd>").failures == ()


def test_a_lost_span_is_a_failure() -> None:
    found = review("Open %(path)s at https://example.org", "Öffnen {2}")
    assert found.failures == (K.PLACEHOLDERS_LOST,)
    assert found.lost == ("%(path)s",)


def test_wrong_language_only_for_answers_long_enough_and_not_echoes() -> None:
    english = StubDetector("en")
    long_answer = "This is still quite clearly an English sentence"
    assert review(
        "Das ist ein Satz", long_answer, detector=english, source_lang="de", target_lang="fr"
    ).failures == (K.WRONG_LANGUAGE,)
    assert english.calls == 1
    review("Short", "Kurz", detector=english)  # too few letters to judge
    review(long_answer, long_answer, detector=english)  # an echo already
    assert english.calls == 1


def test_the_better_answer_wins_and_a_tie_keeps_the_first() -> None:
    echo = Review("Good morning", (K.ECHO,))
    lost = Review("Guten Morgen", (K.PLACEHOLDERS_LOST,), ("%s",))
    assert Guard.choose("Good morning %s", [echo, lost]).chosen == 1
    assert Guard.choose("x", [Review("a", (K.ECHO,)), Review("b", (K.ECHO,))]).chosen == 0


def test_lost_spans_are_appended_and_warned() -> None:
    outcome = Guard.choose(
        "%d files in %s", [Review("Dateien in %s", (K.PLACEHOLDERS_LOST,), ("%d",))]
    )
    assert outcome.text == "Dateien in %s %d"
    assert outcome.warnings == ("placeholders_lost",)


def test_nothing_twice_sends_the_source_with_a_warning() -> None:
    outcome = Guard.choose(
        "Good morning %s", [Review("", (K.EMPTY, K.PLACEHOLDERS_LOST), ("%s",))] * 2
    )
    assert outcome.text == "Good morning %s"
    assert outcome.warnings == ("empty",)


def test_html_text_nodes_keep_their_entities_as_text() -> None:
    guard = Guard(StubDetector("de"))
    assert guard.mask("Fish &amp; chips", "html") == Masked("Fish &amp; chips", ())
    assert guard.mask("Fish &amp; chips", "text").spans == ("&amp;",)


class Guesses(StubDetector):
    def __init__(self, *guesses: tuple[str, float]) -> None:
        super().__init__()
        self.guesses = guesses

    def candidates(self, text: str, limit: int = 3) -> list[_Guess]:
        self.calls += 1
        return [_Guess(_Lang(tag), confidence) for tag, confidence in self.guesses]


def test_an_answer_left_in_the_source_language_is_the_wrong_one() -> None:
    answer = "La valeur de la clé ne sera pas une chaîne"
    unsure = Guesses(("fr", 0.83), ("eu", 0.16))  # not sure enough for the judge alone
    assert review(
        "The value will not be a string",
        answer,
        detector=unsure,
        source_lang="fr",
        target_lang="en",
    ).failures == (K.WRONG_LANGUAGE,)
    assert unsure.calls == 1  # one detection for both rules
    target_possible = Guesses(("fr", 0.83), ("en", 0.1))
    assert (
        review(
            "The value will not be a string",
            answer,
            detector=target_possible,
            source_lang="fr",
            target_lang="en",
        ).failures
        == ()
    )


def test_a_cut_off_retry_does_not_replace_a_first_answer_that_is_nearly_right() -> None:
    lost = Review("Guten Morgen", (K.PLACEHOLDERS_LOST,), ("%s",))
    wrong = Review("Bonjour %s", (K.WRONG_LANGUAGE,))
    echo = Review("Good morning %s", (K.ECHO,))
    runaway = Review("Guten Morgen %s und und und und", (), cut_off=True)
    assert Guard.choose("Good morning %s", [lost, runaway]).chosen == 0
    assert Guard.choose("Good morning %s", [wrong, runaway]).chosen == 0  # a tie: the first
    assert Guard.choose("Good morning %s", [echo, runaway]).chosen == 1  # better than an echo
