"""Whole paragraphs come back whole: split at sentences into engine requests a small model
translates faithfully, checked for omissions and copied examples, retried finer, and never
lost to a deadline once some of it is translated."""

from __future__ import annotations

import math
import re

from translate_server.inference.engine import SamplingOptions
from translate_server.translation.prompts.templates import PromptTemplates

from tests.support.fakes import _FEW_SHOT, _SOURCE, FakeEngine
from tests.support.harness import read_until, running

BASE_MODEL = "google/gemma-3-270m"
GERMAN = {
    "The file was saved successfully and can now be opened.": "Die Datei wurde erfolgreich gespeichert und kann jetzt geöffnet werden.",
    "Please close all other programs before you start the installation.": "Bitte schließen Sie alle anderen Programme, bevor Sie die Installation starten.",
    "The server checks for new updates every night at two o'clock.": "Der Server sucht jede Nacht um zwei Uhr nach neuen Aktualisierungen.",
    "Your changes will be lost if you leave this page now.": "Ihre Änderungen gehen verloren, wenn Sie diese Seite jetzt verlassen.",
}
S1, S2, S3, S4 = GERMAN
GERMAN["Save."] = "Speichern."
PARAGRAPH = f"{S1} {S2}\n{S3}  {S4}"
TRANSLATED = f"{GERMAN[S1]} {GERMAN[S2]}\n{GERMAN[S3]}  {GERMAN[S4]}"
_SENTENCE = re.compile(r"[^.]+\.")


def source_of(prompt: str) -> str:
    if few_shot := _FEW_SHOT.search(prompt):
        return few_shot.group(2)
    return _SOURCE.search(prompt).group(1)  # type: ignore[union-attr]


def translated(source: str) -> str:
    return " ".join(GERMAN[s.strip()] for s in _SENTENCE.findall(source))


def faithful(prompt: str, options: SamplingOptions) -> str:
    return translated(source_of(prompt))


def keeps_the_last_sentence(prompt: str, options: SamplingOptions) -> str:
    """What a small model did with a paragraph: only its last sentence, translated."""
    return translated(source_of(prompt)).rsplit(". ", 1)[-1]


def base_engine(responder=faithful) -> FakeEngine:  # type: ignore[no-untyped-def]
    return FakeEngine(model=BASE_MODEL, chat_template=False, responder=responder)


async def test_a_paragraph_is_one_engine_request_per_piece_of_the_models_size(make_app) -> None:
    engine = base_engine()
    per_piece = PromptTemplates.load().for_model(BASE_MODEL).piece_sentences
    assert per_piece >= 1  # measured for the bundled base model (docs/quality.md)
    async with running(
        make_app(engine, served_model_name=BASE_MODEL, quality_guard=True)
    ) as client:
        response = await client.post(
            "/translate", json={"text": PARAGRAPH, "source_lang": "en", "target_lang": "de"}
        )
    assert response.status_code == 200, response.text
    assert response.json()["translation"] == TRANSLATED
    assert response.json().get("warnings") is None
    assert len(engine.requests) == math.ceil(4 / per_piece)


async def test_a_shortened_answer_is_translated_again_a_sentence_at_a_time(make_app) -> None:
    engine = FakeEngine(responder=keeps_the_last_sentence)  # a chat model: whole paragraphs
    paragraph = f"{S1} {S2} {S3}  {S4}"  # one line: one piece
    async with running(make_app(engine, quality_guard=True)) as client:
        response = await client.post(
            "/translate", json={"text": paragraph, "source_lang": "en", "target_lang": "de"}
        )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["translation"] == TRANSLATED.replace("\n", " ")
    assert body.get("warnings") is None
    # The paragraph, then each of its four sentences on its own.
    assert len(engine.requests) == 5
    assert body["usage"]["completion_tokens"] > 0


async def test_an_omission_that_retrying_cannot_fix_is_warned_and_never_cached(make_app) -> None:
    engine = FakeEngine(responder=lambda prompt, options: "Ja.")
    async with running(make_app(engine, quality_guard=True)) as client:
        for attempt in range(2):
            response = await client.post(
                "/translate", json={"text": S1, "source_lang": "en", "target_lang": "de"}
            )
            assert response.status_code == 200, response.text
            assert response.json()["warnings"] == ["omission"]
            # The greedy answer and one retry, both times: nothing was cached.
            assert len(engine.requests) == 2 * (attempt + 1)


async def test_an_answer_that_copies_a_prompt_example_is_caught(make_app) -> None:
    example = "Die Besprechung beginnt um neun Uhr."  # the base prompt's own example

    def copies_for_s2(prompt: str, options: SamplingOptions) -> str:
        return example if source_of(prompt) == S2 else faithful(prompt, options)

    engine = base_engine(copies_for_s2)
    async with running(
        make_app(engine, served_model_name=BASE_MODEL, quality_guard=True)
    ) as client:
        response = await client.post(
            "/translate", json={"text": [S1, S2], "source_lang": "en", "target_lang": "de"}
        )
    assert response.status_code == 200, response.text
    assert response.json()["warnings"] == [[], ["copied_example"]]
    assert len(engine.requests) == 3  # S1, S2 and its retry


async def test_a_document_of_identical_sentences_is_one_engine_request(make_app) -> None:
    engine = base_engine()
    paragraph = " ".join([S1] * 40)
    text = "\n\n".join([paragraph] * 6)
    async with running(
        make_app(engine, served_model_name=BASE_MODEL, quality_guard=True)
    ) as client:
        response = await client.post(
            "/translate", json={"text": text, "source_lang": "en", "target_lang": "de"}
        )
        assert response.status_code == 200, response.text
        assert response.json()["translation"] == text.replace(S1, GERMAN[S1])
        assert len(engine.requests) == 1
        submitted = (
            await client.post(
                "/translate/document",
                files={"file": ("same.txt", text.encode())},
                data={"source_lang": "en", "target_lang": "de"},
            )
        ).json()
        await read_until(
            lambda: client.get(submitted["status_url"]),
            lambda response: response.json()["status"] in ("done", "error"),
        )
        result = await client.get(submitted["result_url"])
    assert result.content.decode() == text.replace(S1, GERMAN[S1])
    assert len(engine.requests) == 1  # the sentence was cached by the first request


async def test_a_deadline_keeps_what_was_translated_and_says_what_was_not(make_app) -> None:
    def runs_on_for_s3(prompt: str, options: SamplingOptions) -> str:
        return "und so weiter " * 500 if source_of(prompt) == S3 else faithful(prompt, options)

    # "Save." takes a token, S3 its whole budget (three times its 21 tokens): about 0.03 s
    # against 1.9 s, on either side of the deadline.
    engine = FakeEngine(responder=runs_on_for_s3, token_delay=0.03)
    async with running(make_app(engine, quality_guard=True)) as client:
        response = await client.post(
            "/translate",
            json={"text": ["Save.", S3], "source_lang": "en", "target_lang": "de", "timeout": 1.0},
        )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["translations"] == ["Speichern.", S3]
    assert body["finish_reasons"] == ["stop", "partial"]
    assert body["warnings"] == [[], ["deadline_exceeded"]]


async def test_a_deadline_before_anything_is_translated_is_still_a_504(make_app) -> None:
    engine = FakeEngine(responder=lambda p, o: "und so weiter " * 500, token_delay=0.03)
    async with running(make_app(engine)) as client:
        response = await client.post(
            "/translate",
            json={"text": [S1, S3], "source_lang": "en", "target_lang": "de", "timeout": 0.5},
        )
    assert response.status_code == 504, response.text
    assert response.json()["error"]["code"] == "request_timeout"


async def test_a_long_text_whose_sentences_each_pass_but_lose_text_together_is_warned(
    make_app,
) -> None:
    # Each sentence comes back at a bit over half its length: within what people write for
    # one sentence, but the text as a whole is far shorter than a German translation runs.
    def terse(prompt: str, options: SamplingOptions) -> str:
        source = source_of(prompt)
        return GERMAN[source][: int(0.55 * len(source))].rstrip() + "."

    engine = base_engine(terse)
    text = " ".join([S1, S2, S3, S4])
    async with running(
        make_app(engine, served_model_name=BASE_MODEL, quality_guard=True)
    ) as client:
        response = await client.post(
            "/translate", json={"text": text, "source_lang": "en", "target_lang": "de"}
        )
    assert response.status_code == 200, response.text
    assert len(engine.requests) == 4  # no piece was retried: each passed on its own
    assert response.json()["warnings"] == ["omission"]
