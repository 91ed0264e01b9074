"""A translated text keeps its source's structure whatever the model answers: every line break
and blank line of the source is where it was, with the model's answers (any text, line breaks
of every kind, empty, runaway) in between. The service is driven over an engine double that
answers text drawn by hypothesis."""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from translate_server.inference.admission import Admission
from translate_server.inference.engine import SamplingOptions
from translate_server.inference.generation import GenerationService
from translate_server.observability.metrics import ServiceMetrics
from translate_server.observability.record import RequestRecord
from translate_server.settings import LimitSettings
from translate_server.translation.prompts.templates import PromptTemplates
from translate_server.translation.protocol import TranslateRequest
from translate_server.translation.service.translation_service import TranslationService

from tests.support.fakes import _SOURCE, FakeEngine

BASE_MODEL = "google/gemma-3-270m"
BREAK_CHARS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")  # str.splitlines'
LINE_BREAKS = ["\n", "\r\n", "\r", "\u2028", "\u2029", "\x0b", "\x0c", "\x85", "\n\n", "\n \n"]

words = st.sampled_from(["Save", "the", "file.", "Open", "it!", "Why?", "会议。", "%s", "{name}"])
line = st.lists(words, min_size=1, max_size=12).map(" ".join)
blank = st.sampled_from(["", " ", "\t", "  "])
# Lines and blank lines joined by line breaks, with blanks around them.
source_text = st.lists(st.one_of(line, line, blank), min_size=1, max_size=14).map("\n".join)
answer = st.lists(
    st.one_of(st.sampled_from(["Wort", " ", ".", "。", *LINE_BREAKS]), st.text(max_size=8)),
    max_size=16,
).map("".join)


def structure(text: str) -> list[bool]:
    """Which lines of `text` are blank: what a reader sees of its layout."""
    return [not part.strip() for part in text.strip().splitlines()]


def line_breaks(text: str) -> str:
    """Every line break character of `text`, in order."""
    return "".join(c for c in text if c in BREAK_CHARS)


def service(engine: FakeEngine, model: str, guard: bool) -> TranslationService:
    template = PromptTemplates.load().for_model(model)
    return TranslationService(
        GenerationService(engine),
        Admission(slots=64, queue_limit=1024, metrics=ServiceMetrics()),
        LimitSettings(),
        model,
        template=template,
        quality_guard=guard,
    )


def answering(answers: list[str]) -> Callable[[str, SamplingOptions], str]:
    """A responder that answers each prompt with one of `answers`, the same one for the same
    prompt (as greedy decoding would)."""

    def respond(prompt: str, options: SamplingOptions) -> str:
        return answers[zlib.crc32(prompt.encode()) % len(answers)]

    return respond


async def translate(
    text: str,
    responder: Callable[[str, SamplingOptions], str],
    model: str,
    max_model_len: int,
    *,
    guard: bool = True,
) -> str:
    engine = FakeEngine(
        responder=responder,
        model=model,
        chat_template=model != BASE_MODEL,
        max_model_len=max_model_len,
    )
    record = RequestRecord("structure", "/translate", "POST")
    deadline = asyncio.get_running_loop().time() + 60
    request = TranslateRequest(text=text, source_lang="en", target_lang="de")
    response = await service(engine, model, guard).translate(request, record, deadline)
    assert response.translation is not None
    return response.translation


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    source_text.filter(str.strip),
    st.lists(answer, min_size=1, max_size=6),
    st.sampled_from(["fake-model", BASE_MODEL]),
    st.sampled_from([1024, 4096]),
    st.booleans(),
)
@example("Save the file.\n\nOpen it!", ["\n\n\n"], "fake-model", 1024, True)
@example("Save the file.\nOpen it!", ["a\nb\r\nc\u2028d"], BASE_MODEL, 4096, False)
async def test_every_line_break_of_the_source_survives_any_answer(
    text: str, answers: list[str], model: str, max_model_len: int, guard: bool
) -> None:
    translation = await translate(text, answering(answers), model, max_model_len, guard=guard)
    assert line_breaks(translation) == line_breaks(text)
    if guard:  # an empty answer goes back as its source: no line of text becomes blank
        assert structure(translation) == structure(text)


def merging(prompt: str, options: SamplingOptions) -> str:
    """A model that translates (upper-cases) its piece but runs its lines together."""
    found = _SOURCE.search(prompt)
    return " ".join((found.group(1) if found else prompt).upper().split())


@pytest.mark.parametrize("guard", [True, False])
async def test_six_identical_paragraphs_keep_their_five_breaks(guard: bool) -> None:
    # Forty identical sentences a paragraph: long enough to be cut into pieces of several
    # sentences, the last of one paragraph beside the first of the next. (Long words: the
    # double's tokenizer takes a word for a token, and a piece must fit its budget as is.)
    sentence = "Internationalization accommodates extraordinarily heterogeneous configurations."
    paragraph = " ".join([sentence] * 40)
    text = "\n\n".join([paragraph] * 6)
    for responder in (merging, answering(["Der Fuchs.\n\nDer Hund."]), answering([""])):
        translation = await translate(text, responder, "fake-model", 1024, guard=guard)
        assert translation.count("\n\n") == 5
        assert line_breaks(translation) == line_breaks(text)
