"""Planning a /translate request: pure, no engine, no tokenizer, no HTTP."""

from __future__ import annotations

import pytest
from prometheus_client import CollectorRegistry

from translate_server.errors import (
    InvalidRequestError,
    LanguageNotDetectedError,
    ModelNotFoundError,
)
from translate_server.inference.served_models import ServedModels
from translate_server.settings import LimitSettings
from translate_server.text.detection import LanguageDetection
from translate_server.translation.planning.cache import (
    CachedTranslation,
    CacheMetrics,
    TranslationCache,
)
from translate_server.translation.planning.planner import Planner, piece_chars
from translate_server.translation.protocol import TranslateRequest

DETECTION = LanguageDetection()


def planner(cache: TranslationCache | None = None, **limits: int) -> Planner:
    return Planner(LimitSettings(**limits), ServedModels("m"), 2048, DETECTION, cache)


def test_repeated_texts_become_one_piece_in_every_slot() -> None:
    plan = planner().plan(
        TranslateRequest(text=["Hello.", "Bye.", "Hello."], source_lang="en", target_lang="de")
    )
    assert [p.text for p in plan.pieces.values()] == ["Hello.", "Bye."]
    assert plan.texts[0].slots == plan.texts[2].slots
    assert plan.is_batch and len(plan.misses) == 2


def test_a_long_text_is_split_into_pieces_that_join_back() -> None:
    text = "\n\n".join(f"Paragraph number {i} says something." * 20 for i in range(20))
    plan = planner().plan(TranslateRequest(text=text, source_lang="en", target_lang="fr"))
    assert len(plan.pieces) > 1
    assert all(len(p.text) <= piece_chars(2048) for p in plan.pieces.values())
    pieces = plan.texts[0].slots
    assert plan.texts[0].document.assemble([plan.pieces[k].text for k in pieces]) == text


def test_cached_pieces_are_not_misses_and_the_key_names_everything_that_shapes_them() -> None:
    cache = TranslationCache(10, CacheMetrics(CollectorRegistry()))
    first = planner(cache).plan(
        TranslateRequest(text="Hello.", source_lang="en", target_lang="de", formality="formal")
    )
    key = next(iter(first.pieces))
    # (): no instructions; None, None, None: no max_tokens, no memory, no context; 1 candidate
    assert key == ("m", "en", "de", (), "formal", (), None, None, None, 1, "Hello.")
    cache.put(key, CachedTranslation("Hallo.", 2))
    again = planner(cache).plan(
        TranslateRequest(text="Hello.", source_lang="en", target_lang="de", formality="formal")
    )
    assert again.misses == []
    again.take_cached()
    assert again.results[key].text == "Hallo."
    # A context may change the translation: it is another key.
    with_context = planner(cache).plan(
        TranslateRequest(
            text="Hello.", source_lang="en", target_lang="de", formality="formal", context="A"
        )
    )
    assert len(with_context.misses) == 1


def test_the_source_language_is_detected_per_text() -> None:
    plan = planner().plan(
        TranslateRequest(
            text=[
                "Das ist ein ganz normaler deutscher Satz über das Wetter.",
                "Ceci est une phrase française tout à fait ordinaire sur le temps.",
            ],
            target_lang="en",
        )
    )
    assert [t.source.tag for t in plan.texts] == ["de", "fr"]
    assert all(t.detection is not None for t in plan.texts)


def test_glossary_entries_reach_only_the_pieces_that_contain_them() -> None:
    plan = planner().plan(
        TranslateRequest(
            text=["The cat sleeps.", "A dog barks."],
            source_lang="en",
            target_lang="de",
            glossary={"cat": "Katze"},
        )
    )
    glossaries = [p.glossary for p in plan.pieces.values()]
    assert glossaries == [{"cat": "Katze"}, {}]


@pytest.mark.parametrize(
    ("request_", "param"),
    [
        (TranslateRequest(text="Hi", target_lang="xx-invalid-tag"), "target_lang"),
        (TranslateRequest(text=" ", source_lang="en", target_lang="de"), "text"),
        (TranslateRequest(text=["a", " "], source_lang="en", target_lang="de"), "text[1]"),
        (TranslateRequest(text=["a"], source_lang="en", target_lang="de", stream=True), "stream"),
        (
            TranslateRequest(text="a", source_lang="en", target_lang="de", max_tokens=99_999),
            "max_tokens",
        ),
    ],
)
def test_invalid_requests_name_the_field(request_: TranslateRequest, param: str) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        planner().plan(request_)
    assert caught.value.param == param


def test_limits_on_texts_and_characters() -> None:
    with pytest.raises(InvalidRequestError, match="At most 2 texts"):
        planner(max_texts=2).plan(
            TranslateRequest(text=["a", "b", "c"], source_lang="en", target_lang="de")
        )
    with pytest.raises(InvalidRequestError) as caught:
        planner(max_text_chars=5).plan(
            TranslateRequest(text="abcdef", source_lang="en", target_lang="de")
        )
    assert caught.value.code == "string_above_max_length"


def test_another_model_is_not_found() -> None:
    with pytest.raises(ModelNotFoundError):
        planner().plan(
            TranslateRequest(text="a", source_lang="en", target_lang="de", model="other")
        )


def test_a_paragraph_cut_into_sentences_weighs_what_the_paragraph_does() -> None:
    paragraph = " ".join(f"Sentence number {i} is here." for i in range(10))
    plan = Planner(LimitSettings(), ServedModels("m"), 2048, DETECTION, piece_sentences=1).plan(
        TranslateRequest(text=[paragraph, "Another text."], source_lang="en", target_lang="de")
    )
    assert len(plan.misses) == 11
    assert plan.weight(len(plan.misses)) == 2  # one per text, as before it was cut
    assert plan.weight(1) == 1 and plan.weight(0) == 0


def test_an_undetected_text_of_a_batch_is_named_by_its_index() -> None:
    batch = TranslateRequest(text=["Guten Morgen, wie geht es dir?", "12345"], target_lang="en")
    with pytest.raises(LanguageNotDetectedError) as caught:
        planner().plan(batch)
    assert (caught.value.index, caught.value.param) == (1, "text[1]")
    assert caught.value.code == "language_not_detected"
    # A request of one text is no batch: the text has no index to name.
    with pytest.raises(LanguageNotDetectedError) as single:
        planner().plan(TranslateRequest(text="12345", target_lang="en"))
    assert (single.value.index, single.value.param) == (None, "text")
