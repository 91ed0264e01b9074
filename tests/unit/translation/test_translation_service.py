"""The translation service driven directly over the engine double, no HTTP: what it refuses
while planning (before admission), what planning spares the engine (repeats, the cache, a
translation memory), the engine options and the model it picks, partial answers on a deadline,
the guard's retry, its streams, and its admission ticket given back on every path."""

from __future__ import annotations

import asyncio
import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from translate_server.errors import (
    DeadlineExceededError,
    EngineFailedError,
    InvalidRequestError,
    MemoryNotFoundError,
    ModelNotFoundError,
    OverloadedError,
)
from translate_server.inference.engine import EngineDeadError, SamplingOptions
from translate_server.observability.record import RequestRecord
from translate_server.settings import LimitSettings
from translate_server.translation.guard.findings import findings
from translate_server.translation.protocol import DetectRequest, TranslateRequest
from translate_server.translation.service.translation_service import TranslationService

from tests.support.fakes import FakeEngine
from tests.support.harness import eventually
from tests.support.service_builder import ServiceBuilder, StaticAdapters, deadline, record, wire

_SOURCES = re.compile(r"<source>\n(.*?)\n</source>", re.DOTALL)


def source_of(prompt: str) -> str:
    """The text a translation prompt asks for (the last fenced one: examples come first)."""
    return _SOURCES.findall(prompt)[-1]


def upper_cased(prompt: str, options: SamplingOptions) -> str:
    return source_of(prompt).upper()


def translate_request(**fields: Any) -> TranslateRequest:
    return wire(
        TranslateRequest,
        {"text": "Good morning.", "source_lang": "en", "target_lang": "de", **fields},
    )


async def translate(
    service: TranslationService,
    seen: RequestRecord | None = None,
    *,
    owner: str = "",
    keep_partial: bool = False,
    within: float = 30.0,
    **fields: Any,
) -> Any:
    return await service.translate(
        translate_request(**fields),
        seen or record("/translate"),
        deadline(within),
        keep_partial=keep_partial,
        owner=owner,
    )


def options_of(built: ServiceBuilder, index: int = -1) -> SamplingOptions:
    return built.engine.requests[index][2]


def prompts(built: ServiceBuilder) -> list[str]:
    return [built.engine.decode(ids) for _, ids, _ in built.engine.requests]


# -- a translation, and what it asks of the engine -----------------------------------------


async def test_a_text_is_one_greedy_engine_request_answered_with_its_usage() -> None:
    built = ServiceBuilder()
    seen = record("/translate")
    answer = await translate(built.translation(), seen)
    assert (answer.translation, answer.finish_reason) == ("GOOD MORNING.", "stop")
    assert (answer.source_lang, answer.target_lang, answer.model) == ("en", "de", "fake-model")
    assert answer.detected_source_lang is None and answer.warnings is None
    (prompt,) = prompts(built)
    assert "from English to German" in prompt and "<source>\nGood morning.\n</source>" in prompt
    options = options_of(built)
    assert (options.temperature, options.n, options.priority) == (0.0, 1, 0)
    assert options.stop == ("</source>", "\n\n")  # where the model's commentary would begin
    assert (answer.usage.prompt_tokens, answer.usage.completion_tokens) == (
        len(built.engine.requests[0][1]),
        2,  # "GOOD", " MORNING."
    )
    assert (seen.model, seen.finish_reason, seen.engine_requests) == ("fake-model", "stop", 1)
    assert built.admission.in_flight == 0


async def test_the_engine_priority_is_the_service_s_own() -> None:
    built = ServiceBuilder()
    await translate(built.translation(priority=1))
    assert options_of(built).priority == 1


async def test_a_runaway_answer_is_cut_at_a_budget_from_the_source_not_the_context() -> None:
    built = ServiceBuilder(FakeEngine(responder=lambda prompt, options: "Die Datei " * 400))
    answer = await translate(built.translation())
    budget = options_of(built).max_tokens
    assert budget < 40  # a few times the three tokens of the source, far from the 2,048
    assert answer.finish_reason == "length"
    assert answer.usage.completion_tokens == budget
    await translate(built.translation(), max_tokens=7)
    assert options_of(built).max_tokens == 7


async def test_a_list_keeps_its_order_and_each_repeat_is_translated_once() -> None:
    built = ServiceBuilder()
    answer = await translate(built.translation(), text=["Yes.", "No.", "Yes."])
    assert answer.translations == ["YES.", "NO.", "YES."]
    assert answer.finish_reasons == ["stop"] * 3
    assert len(built.engine.requests) == 2
    assert answer.usage.completion_tokens == 2  # each unique piece counted once


async def test_a_long_text_is_split_into_pieces_translated_at_once_and_reassembled() -> None:
    built = ServiceBuilder(FakeEngine(max_model_len=300))
    paragraphs = [f"Paragraph {i} says something of its own." for i in range(6)]
    answer = await translate(built.translation(), text="\n\n".join(paragraphs))
    assert answer.translation == "\n\n".join(p.upper() for p in paragraphs)
    assert len(built.engine.requests) > 1
    assert built.admission.in_flight == 0


# -- refusals, while planning: before admission, nothing tokenized -------------------------

REFUSED = [
    ({"text": "   "}, "text", None),
    ({"text": ["Yes.", " "]}, "text[1]", None),
    ({"text": []}, "text", None),
    ({"text": ["a"] * 3}, "text", None),  # the limit below: at most 2
    ({"text": ["Yes.", "x" * 101]}, "text[1]", "string_above_max_length"),
    ({"text": ["Yes.", "No."], "stream": True}, "stream", None),
    ({"alternatives": 2, "stream": True}, "alternatives", None),
    ({"max_tokens": 51}, "max_tokens", None),
    ({"target_lang": "not a tag"}, "target_lang", None),
    ({"source_lang": "zz-Fake-Tag"}, "source_lang", None),
    ({"glossary": {"": "leer"}}, "glossary", None),
    ({"memory": "tm-1"}, "memory", None),  # this service keeps no memories
]


@pytest.mark.parametrize("streamed", [False, True], ids=["translate", "stream"])
@pytest.mark.parametrize(("fields", "param", "code"), REFUSED)
async def test_a_mistake_is_refused_while_planning_before_admission(
    fields: dict[str, Any], param: str, code: str | None, streamed: bool
) -> None:
    built = ServiceBuilder(limits=LimitSettings(max_texts=2, max_text_chars=100, max_tokens=50))
    built.fill_admission()  # a mistake is a 400 even when the server is full, never a 503
    service = built.translation()
    request = translate_request(**fields)
    attempt = (service.open_stream if streamed else service.translate)(
        request, record("/translate"), deadline()
    )
    with pytest.raises(InvalidRequestError) as refused:
        await attempt
    assert refused.value.param.startswith(param)
    if code is not None:
        assert refused.value.code == code
    assert built.engine.vocab == {} and built.engine.requests == []


async def test_more_pieces_than_the_limit_is_refused_before_the_engine() -> None:
    built = ServiceBuilder(limits=LimitSettings(max_pieces=2))
    with pytest.raises(InvalidRequestError) as refused:
        await translate(built.translation(), text=["One.", "Two.", "Three."])
    assert (refused.value.param, refused.value.code) == ("text[2]", "too_many_pieces")
    assert built.engine.requests == []


async def test_an_unknown_model_is_a_404() -> None:
    built = ServiceBuilder()
    with pytest.raises(ModelNotFoundError):
        await translate(built.translation(), model="gpt-4o")
    assert built.engine.requests == []


async def test_instructions_are_refused_on_a_base_model_and_fenced_on_a_chat_model() -> None:
    base = ServiceBuilder(FakeEngine(chat_template=False))
    with pytest.raises(InvalidRequestError) as refused:
        await translate(base.translation(), instructions=["Be formal."])
    assert refused.value.code == "instructions_not_supported"
    built = ServiceBuilder()
    await translate(built.translation(), instructions=["Keep product names in English."])
    assert "Keep product names in English." in prompts(built)[0]


async def test_a_full_server_refuses_what_needs_the_engine_at_once() -> None:
    built = ServiceBuilder(slots=1, queue_limit=0)
    held = built.fill_admission()
    with pytest.raises(OverloadedError):
        await translate(built.translation())
    assert built.engine.requests == []
    held.release()
    assert built.admission.in_flight == 0


async def test_a_dead_engine_fails_a_stream_before_admission() -> None:
    engine = FakeEngine()
    engine.alive = False
    built = ServiceBuilder(engine)
    with pytest.raises(EngineDeadError):
        await built.translation().open_stream(translate_request(), record(), deadline())
    assert built.admission.in_flight == 0


# -- the cache -----------------------------------------------------------------------------


async def test_a_cached_translation_needs_neither_the_engine_nor_a_place_in_admission() -> None:
    built = ServiceBuilder(slots=1, queue_limit=0)
    service = built.translation()
    first = await translate(service)
    held = built.fill_admission()
    again = await translate(service)
    assert again.translation == first.translation == "GOOD MORNING."
    assert len(built.engine.requests) == 1
    assert again.usage.completion_tokens == 0  # nothing generated for it
    held.release()


async def test_a_request_is_admitted_for_the_pieces_the_cache_does_not_hold() -> None:
    built = ServiceBuilder(slots=2, queue_limit=2)
    service = built.translation()
    await translate(service, text="One.")
    held = built.admission.admit(2)  # two places left
    with pytest.raises(OverloadedError):
        await translate(service, text=["Two.", "Three.", "Four."])
    answer = await translate(service, text=["One.", "Two.", "Three."])
    assert answer.translations == ["ONE.", "TWO.", "THREE."]
    assert built.admission.in_flight == 2  # the held ones only
    held.release()


async def test_what_shapes_the_prompt_is_part_of_the_cache_key() -> None:
    built = ServiceBuilder()
    service = built.translation()
    await translate(service)
    await translate(service, formality="formal")
    await translate(service, target_lang="fr")
    await translate(service, glossary={"morning": "Morgen"})
    await translate(service, context="A greeting on a sign.")
    assert len(built.engine.requests) == 5
    assert "formal" in prompts(built)[1] and "French" in prompts(built)[2]


async def test_a_cut_translation_is_not_kept_and_alternatives_always_ask_the_engine() -> None:
    built = ServiceBuilder()
    service = built.translation()
    cut = await translate(service, max_tokens=1)
    assert (cut.translation, cut.finish_reason) == ("GOOD", "length")
    await translate(service, max_tokens=1)
    assert len(built.engine.requests) == 2  # asked again: a cut answer is not kept
    await translate(service)
    with_alternatives = await translate(service, alternatives=2)
    assert len(built.engine.requests) == 3 + 2  # the greedy one and the sampled ones
    assert [r[2].n for r in built.engine.requests[3:]] == [1, 2]
    assert options_of(built).temperature > 0
    assert with_alternatives.alternatives == [["GOOD MORNING. #0", "GOOD MORNING. #1"]]


async def test_without_a_cache_every_request_asks_the_engine() -> None:
    built = ServiceBuilder()
    service = built.translation(cache=None)
    await translate(service)
    await translate(service)
    assert len(built.engine.requests) == 2


# -- a translation memory ------------------------------------------------------------------


@dataclass(frozen=True)
class StoredMemory:
    id: str
    revision: int


@dataclass(frozen=True)
class Match:
    exact: str | None
    score: float
    examples: tuple[tuple[str, str], ...] = ()


class InMemoryMemories:
    """Translation memories in dicts, each its owner's: entries matched exactly, or by a
    character similarity for the fuzzy ones (`translation.planning.ports.MemoryLookup`)."""

    def __init__(self) -> None:
        self.stored: dict[tuple[str, str], StoredMemory] = {}
        self.entries: dict[str, dict[str, str]] = {}
        self.lookups: list[tuple[str, str, str, str, list[str], float]] = []

    def add(self, owner: str, memory_id: str, entries: dict[str, str]) -> None:
        old = self.stored.get((owner, memory_id))
        self.stored[owner, memory_id] = StoredMemory(memory_id, old.revision + 1 if old else 1)
        self.entries[memory_id] = {**self.entries.get(memory_id, {}), **entries}

    async def get(self, owner: str, memory_id: str, param: str = "memory_id") -> StoredMemory:
        found = self.stored.get((owner, memory_id))
        if found is None:
            raise MemoryNotFoundError("No translation memory with this id.", param=param)
        return found

    async def look_up(
        self,
        owner: str,
        memory_id: str,
        source_tag: str,
        target_tag: str,
        texts: Sequence[str],
        threshold: float,
    ) -> list[Match | None]:
        self.lookups.append((owner, memory_id, source_tag, target_tag, list(texts), threshold))
        entries = self.entries[memory_id]
        return [self._best(text, entries, threshold) for text in texts]

    @staticmethod
    def _best(text: str, entries: dict[str, str], threshold: float) -> Match | None:
        if text in entries:
            return Match(entries[text], 100.0)
        scored = [(100 * difflib.SequenceMatcher(None, s, text).ratio(), s) for s in entries]
        score, source = max(scored, default=(0.0, ""))
        return Match(None, score, ((source, entries[source]),)) if score >= threshold else None


def with_memory(**entries_of_owner: dict[str, str]) -> tuple[ServiceBuilder, Any, InMemoryMemories]:
    memories = InMemoryMemories()
    for owner, entries in entries_of_owner.items():
        memories.add(owner, "tm-1", entries)
    built = ServiceBuilder(FakeEngine(responder=upper_cased))
    return built, built.translation(memories=memories), memories


async def test_a_piece_found_exactly_in_the_memory_is_answered_from_it() -> None:
    built, service, memories = with_memory(alice={"Good morning.": "Guten Morgen."})
    seen = record("/translate")
    answer = await translate(service, seen, owner="alice", memory="tm-1")
    assert answer.translation == "Guten Morgen."
    assert built.engine.requests == []
    assert answer.memory_match.match == "exact" and answer.memory_match.score == 100.0
    assert findings(seen).memory_exact == 1
    assert memories.lookups == [("alice", "tm-1", "en", "de", ["Good morning."], 75.0)]


async def test_close_matches_are_shown_to_the_model_as_examples() -> None:
    built, service, _ = with_memory(alice={"Good morning, Anna.": "Guten Morgen, Anna."})
    seen = record("/translate")
    answer = await translate(service, seen, owner="alice", memory="tm-1", text="Good morning, Ann.")
    prompt = prompts(built)[0]
    assert "<source>\nGood morning, Anna.\n</source><|im_end|>" in prompt
    assert "<|im_start|>assistant\nGuten Morgen, Anna.<|im_end|>" in prompt
    assert answer.translation == "GOOD MORNING, ANN."
    assert answer.memory_match.match == "fuzzy" and findings(seen).memory_fuzzy == 1
    strict = await translate(
        service, owner="alice", memory="tm-1", text="Good evening, Bob.", memory_threshold=99
    )
    assert strict.memory_match is None and "Anna" not in prompts(built)[-1]


async def test_another_owner_s_memory_is_a_404_and_looks_nothing_up() -> None:
    built, service, memories = with_memory(alice={"Good morning.": "Guten Morgen."})
    with pytest.raises(MemoryNotFoundError) as missing:
        await translate(service, owner="bob", memory="tm-1")
    assert missing.value.param == "memory"
    assert memories.lookups == [] and built.engine.requests == []


async def test_the_pieces_of_a_request_are_looked_up_together_once() -> None:
    _, service, memories = with_memory(alice={"Yes.": "Ja."})
    answer = await translate(service, owner="alice", memory="tm-1", text=["Yes.", "No.", "Yes."])
    assert answer.translations == ["Ja.", "NO.", "Ja."]
    assert [lookup[4] for lookup in memories.lookups] == [["Yes.", "No."]]
    assert [m and m.match for m in answer.memory_matches] == ["exact", None, "exact"]


async def test_a_memory_changed_since_is_not_answered_from_the_cache() -> None:
    built, service, memories = with_memory(alice={"Good morning, Anna.": "Guten Morgen, Anna."})
    asked = {"owner": "alice", "memory": "tm-1", "text": "Good morning, Ann."}
    await translate(service, **asked)
    await translate(service, **asked)
    assert len(built.engine.requests) == 1  # the same memory, the same examples: cached
    memories.add("alice", "tm-1", {"Good morning, Ann!": "Guten Morgen, Ann!"})
    await translate(service, **asked)
    assert len(built.engine.requests) == 2


# -- adapters ------------------------------------------------------------------------------


async def test_the_adapter_serving_the_pair_translates_unless_a_model_is_named() -> None:
    adapters = StaticAdapters({"legal-de": (("en", "de"),)})
    built = ServiceBuilder(adapters=adapters)
    service = built.translation()
    seen = record("/translate")
    routed = await translate(service, seen)
    assert options_of(built).adapter == adapters.loaded("legal-de")
    assert routed.model == seen.model == "legal-de"
    base = await translate(service, target_lang="fr")
    assert options_of(built).adapter is None and base.model == "fake-model"
    named = await translate(service, model="fake-model")
    assert options_of(built).adapter is None and named.model == "fake-model"
    assert len(built.engine.requests) == 3  # one adapter's translation is not the base's
    both = await translate(service, text=["Yes."], target_lang="de")
    assert both.model == "legal-de"


# -- deadlines, failures, cancellation -----------------------------------------------------


def slow_for_long_texts(prompt: str, options: SamplingOptions) -> str:
    source = source_of(prompt)
    return source.upper() if len(source) < 10 else " ".join(["wort"] * 60)


async def test_a_deadline_keeps_what_was_translated_when_asked_to() -> None:
    built = ServiceBuilder(FakeEngine(responder=slow_for_long_texts, token_delay=0.05))
    long = "This text takes the engine far longer than the deadline allows."
    service = built.translation()
    answer = await translate(service, keep_partial=True, within=1.0, text=["Hi.", long])
    assert answer.translations == ["HI.", long]  # the rest sent back as it was
    assert answer.finish_reasons == ["stop", "partial"]
    assert answer.warnings == [[], ["deadline_exceeded"]]
    assert built.admission.in_flight == 0
    await eventually(lambda: not built.engine.unfinished)
    with pytest.raises(DeadlineExceededError):
        await translate(service, within=1.0, text=["Hi!", long])
    assert built.admission.in_flight == 0


async def test_a_deadline_with_nothing_translated_is_a_504_even_when_partial_is_kept() -> None:
    engine = FakeEngine()
    engine.hang = True
    built = ServiceBuilder(engine)
    with pytest.raises(DeadlineExceededError) as late:
        await translate(built.translation(), keep_partial=True, within=0.2, text=["A.", "B."])
    assert "nothing of it was translated" in late.value.message
    assert built.admission.in_flight == 0


async def test_one_failed_piece_fails_the_request_and_stops_the_others() -> None:
    engine = FakeEngine(token_delay=0.01)
    engine.fail_after_tokens = 3
    built = ServiceBuilder(engine)
    with pytest.raises(EngineFailedError):
        await translate(built.translation(), text=["One two three four.", "Five six seven."])
    assert built.admission.in_flight == 0
    await eventually(lambda: not engine.unfinished)


async def test_a_request_cancelled_while_the_engine_works_gives_its_ticket_back() -> None:
    engine = FakeEngine()
    engine.hang = True
    built = ServiceBuilder(engine)
    waiting = asyncio.create_task(translate(built.translation(), text=["One.", "Two."]))
    await eventually(lambda: len(engine.unfinished) == 2)
    assert built.admission.in_flight == 2
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert built.admission.in_flight == 0
    assert engine.unfinished == set()


# -- the guard -----------------------------------------------------------------------------

GERMAN = "Die Datei wurde erfolgreich gespeichert und kann jetzt geöffnet werden"


def echo_then_german(prompt: str, options: SamplingOptions) -> str:
    return GERMAN if options.temperature > 0 else source_of(prompt)


async def test_the_guard_retries_an_echo_once_within_the_same_admission() -> None:
    built = ServiceBuilder(FakeEngine(responder=echo_then_german), slots=1, queue_limit=0)
    seen = record("/translate")
    answer = await translate(built.translation(quality_guard=True), seen, text="The file was saved")
    assert answer.translation == GERMAN and answer.warnings is None
    first, retry = (options for _, _, options in built.engine.requests)
    assert first.temperature == 0.0
    assert (retry.temperature, retry.seed, retry.repetition_penalty) == (0.3, 1, 1.15)
    assert answer.usage.completion_tokens == 4 + len(GERMAN.split())
    assert (findings(seen).failures, findings(seen).retries) == (["echo"], 1)
    assert built.admission.in_flight == 0


async def test_an_answer_still_wrong_after_the_retry_is_sent_with_its_warning_and_not_cached() -> (
    None
):
    built = ServiceBuilder(FakeEngine(responder=lambda prompt, options: source_of(prompt)))
    service = built.translation(quality_guard=True)
    seen = record("/translate")
    answer = await translate(service, seen, text="The file was saved")
    assert (answer.translation, answer.warnings) == ("The file was saved", ["echo"])
    assert findings(seen).warnings == ["echo"]
    await translate(service, text="The file was saved")
    assert len(built.engine.requests) == 4  # tried again, twice: nothing wrong is kept


# -- streams -------------------------------------------------------------------------------


async def every_chunk(service: TranslationService, **fields: Any) -> list[Any]:
    chunks = await service.open_stream(
        translate_request(stream=True, **fields), record("/translate"), deadline()
    )
    return [chunk async for chunk in chunks]


async def test_a_stream_sends_the_translation_then_a_last_chunk_with_the_figures() -> None:
    built = ServiceBuilder()
    *texts, last = await every_chunk(built.translation(), source_lang="en")
    assert "".join(chunk.delta for chunk in texts) == "GOOD MORNING."
    assert all(chunk.finish_reason is None for chunk in texts)
    assert (last.delta, last.finish_reason, last.source_lang) == ("", "stop", "en")
    assert (last.usage.prompt_tokens, last.usage.completion_tokens) == (
        len(built.engine.requests[0][1]),
        2,
    )
    assert built.admission.in_flight == 0


async def test_a_long_text_streams_piece_after_piece_in_its_order() -> None:
    built = ServiceBuilder(FakeEngine(max_model_len=300, token_delay=0.001))
    paragraphs = [f"Paragraph {i} says something of its own." for i in range(6)]
    chunks = await every_chunk(built.translation(), text="\n\n".join(paragraphs))
    assert "".join(c.delta for c in chunks) == "\n\n".join(p.upper() for p in paragraphs)
    assert len(built.engine.requests) > 1 and built.admission.in_flight == 0


async def test_a_cached_text_streams_without_the_engine() -> None:
    built = ServiceBuilder(slots=1, queue_limit=0)
    service = built.translation()
    await translate(service)
    held = built.fill_admission()
    chunks = await every_chunk(service)
    assert "".join(c.delta for c in chunks) == "GOOD MORNING." and chunks[-1].finish_reason
    assert len(built.engine.requests) == 1
    held.release()


async def test_a_stream_left_early_gives_its_ticket_back_and_ends_its_engine_requests() -> None:
    built = ServiceBuilder(FakeEngine(max_model_len=300, token_delay=0.01))
    paragraphs = [f"Paragraph {i} says something of its own." for i in range(6)]
    chunks = await built.translation().open_stream(
        translate_request(stream=True, text="\n\n".join(paragraphs)), record(), deadline()
    )
    await anext(chunks)
    assert built.admission.in_flight > 0
    await chunks.aclose()
    assert built.admission.in_flight == 0
    assert built.engine.unfinished == set()


async def test_a_stream_closed_before_its_first_chunk_gives_its_ticket_back() -> None:
    built = ServiceBuilder(FakeEngine(max_model_len=300, token_delay=0.01))
    paragraphs = [f"Paragraph {i} says something of its own." for i in range(6)]
    chunks = await built.translation().open_stream(
        translate_request(stream=True, text="\n\n".join(paragraphs)), record(), deadline()
    )
    assert built.admission.in_flight > 0
    await chunks.aclose()
    assert built.admission.in_flight == 0
    assert built.engine.unfinished == set()


async def test_a_failure_mid_stream_is_raised_from_the_chunks_and_the_ticket_given_back() -> None:
    engine = FakeEngine()
    engine.fail_after_tokens = 1
    built = ServiceBuilder(engine)
    chunks = await built.translation().open_stream(
        translate_request(stream=True), record(), deadline()
    )
    with pytest.raises(EngineFailedError):
        async for _ in chunks:
            pass
    assert built.admission.in_flight == 0


async def test_a_stream_is_checked_when_it_ends_never_retried() -> None:
    built = ServiceBuilder(FakeEngine(responder=lambda prompt, options: source_of(prompt)))
    chunks = await every_chunk(built.translation(quality_guard=True), text="The file was saved")
    assert "".join(c.delta for c in chunks) == "The file was saved"
    assert chunks[-1].warnings == ["echo"]
    assert len(built.engine.requests) == 1


# -- /detect -------------------------------------------------------------------------------


async def test_detect_names_the_language_and_refuses_a_text_too_long() -> None:
    service = ServiceBuilder(limits=LimitSettings(max_text_chars=100)).translation()
    found = service.detect(wire(DetectRequest, {"text": "Die Katze schläft auf dem Sofa."}))
    assert (found.language, found.name) == ("de", "German")
    assert found.candidates[0].language == "de"
    with pytest.raises(InvalidRequestError) as refused:
        service.detect(wire(DetectRequest, {"text": "x" * 101}))
    assert refused.value.code == "string_above_max_length"
