"""DeepLService driven directly, as its routes drive it: texts, Write, usage, glossaries, style
rules and documents, over the engine double and DeepL's accounts in a real SQLite file. The
wire (bodies, keys, error shapes) is the integration tests'."""

from __future__ import annotations

import asyncio

import pytest

from translate_server.compat.deepl import style_rules
from translate_server.compat.deepl.accounts import UNLIMITED, DeepLAccounts
from translate_server.compat.deepl.glossaries import (
    DictionaryBody,
    MultilingualGlossaryCreate,
    MultilingualGlossaryPatch,
)
from translate_server.compat.deepl.protocol import DeepLTranslateRequest, GlossaryCreate
from translate_server.compat.deepl.service import DeepLService, DocumentNotReadyYetError
from translate_server.compat.deepl.style_rules import (
    InstructionBody,
    StyleRuleCreate,
    StyleRuleNotFoundError,
)
from translate_server.compat.deepl.write import WriteRequest
from translate_server.documents.upload import Upload
from translate_server.errors import (
    AuthenticationError,
    DocumentNotFoundError,
    InvalidRequestError,
    LanguageNotDetectedError,
)
from translate_server.glossaries.model import GlossaryNotFoundError
from translate_server.observability.record import RequestRecord
from translate_server.owners import SHARED, owner_of
from translate_server.translation.prompts.instructions import InstructionsNotSupportedError
from translate_server.translation.service.translation_service import TranslationService

from tests.support.compat_services import (
    SRT,
    DocumentsFactory,
    finished,
    keys_required,
    prompts,
    translation_over,
)
from tests.support.fakes import FakeEngine

GERMAN = "Guten Morgen, wie geht es dir heute?"


@pytest.fixture
def deepl(accounts: DeepLAccounts, translation: TranslationService) -> DeepLService:
    return DeepLService(accounts, translation)


async def _glossary(deepl: DeepLService, key: str, entries: str = "Sentence\tSatz") -> str:
    body = GlossaryCreate(name="Terms", source_lang="EN", target_lang="DE", entries=entries)
    return (await deepl.glossaries.create_v2(key, body)).glossary_id


# -- texts -------------------------------------------------------------------------------------
async def test_texts_are_translated_and_billed_to_the_key_that_sent_them(
    deepl: DeepLService, record: RequestRecord, deadline: float
) -> None:
    body = DeepLTranslateRequest(text=["Hello.", "See you."], source_lang="EN", target_lang="DE")
    answer = await deepl.translate(body, "alice", record, deadline)
    assert [
        (t.text, t.detected_source_language, t.billed_characters) for t in answer.translations
    ] == [
        ("HELLO.", "EN", 6),
        ("SEE YOU.", "EN", 8),
    ]
    assert (await deepl.usage("alice")).character_count == 14
    assert (await deepl.usage("bob")).character_count == 0
    assert (await deepl.usage("bob")).character_limit == UNLIMITED


async def test_texts_whose_language_is_not_detected_come_back_and_the_rest_is_translated(
    deepl: DeepLService, engine: FakeEngine, record: RequestRecord, deadline: float
) -> None:
    texts = [GERMAN, "12345", "Das Wetter ist heute sehr schön.", "!!!"]
    body = DeepLTranslateRequest(text=texts, target_lang="EN-US")
    answer = await deepl.translate(body, "alice", record, deadline)
    assert [(t.text, t.detected_source_language) for t in answer.translations] == [
        (GERMAN.upper(), "DE"),
        ("12345", "EN"),  # as it is, in the target's language, as DeepL answers it
        ("DAS WETTER IST HEUTE SEHR SCHÖN.", "DE"),
        ("!!!", "EN"),
    ]
    assert len(engine.requests) == 2  # only the texts that could be translated
    # Every text is billed, the ones kept as they are included (as DeepL bills them).
    assert (await deepl.usage("alice")).character_count == sum(len(text) for text in texts)


async def test_a_batch_of_which_no_language_is_detected_is_refused_unbilled(
    deepl: DeepLService, engine: FakeEngine, record: RequestRecord, deadline: float
) -> None:
    body = DeepLTranslateRequest(text=["12345", "!!!"], target_lang="DE")
    with pytest.raises(LanguageNotDetectedError) as refused:
        await deepl.translate(body, "alice", record, deadline)
    assert refused.value.code == "language_not_detected"
    assert engine.requests == []
    assert (await deepl.usage("alice")).character_count == 0


async def test_a_glossary_is_the_key_s_own(
    deepl: DeepLService, engine: FakeEngine, record: RequestRecord, deadline: float
) -> None:
    glossary_id = await _glossary(deepl, "alice")
    body = DeepLTranslateRequest(
        text=["Sentence one."], source_lang="EN", target_lang="DE", glossary_id=glossary_id
    )
    await deepl.translate(body, "alice", record, deadline)
    assert "Sentence" in prompts(engine)[0] and "Satz" in prompts(engine)[0]
    with pytest.raises(GlossaryNotFoundError):
        await deepl.translate(body, "bob", record, deadline)
    unpaired = DeepLTranslateRequest(text=["Hi."], target_lang="DE", glossary_id=glossary_id)
    with pytest.raises(InvalidRequestError) as refused:  # as DeepL: a glossary needs a source
        await deepl.translate(unpaired, "alice", record, deadline)
    assert refused.value.param == "source_lang"


async def test_a_style_rule_and_custom_instructions_reach_the_prompt_in_order(
    deepl: DeepLService, engine: FakeEngine, record: RequestRecord, deadline: float
) -> None:
    rule = await deepl.style_rules.create(
        "alice",
        StyleRuleCreate(
            name="House style",
            language="de",
            custom_instructions=[InstructionBody(label="du", prompt="Address the reader as du.")],
        ),
    )
    body = DeepLTranslateRequest(
        text=["Hello."],
        source_lang="EN",
        target_lang="DE",
        style_id=rule.style_id,
        custom_instructions=["Keep it short."],
    )
    await deepl.translate(body, "alice", record, deadline)
    prompt = prompts(engine)[0]
    assert prompt.index("Address the reader as du.") < prompt.index("Keep it short.")
    with pytest.raises(StyleRuleNotFoundError):  # another key's rule is unknown to it
        await deepl.translate(body, "bob", record, deadline)
    french = DeepLTranslateRequest(
        text=["Hello."], target_lang="FR", style_id=rule.style_id, source_lang="EN"
    )
    with pytest.raises(InvalidRequestError) as refused:
        await deepl.translate(french, "alice", record, deadline)
    assert refused.value.param == "target_lang"
    hurried = DeepLTranslateRequest(
        text=["Hello."],
        target_lang="DE",
        custom_instructions=["Keep it short."],
        model_type="latency_optimized",
    )
    with pytest.raises(InvalidRequestError) as refused:
        await deepl.translate(hurried, "alice", record, deadline)
    assert refused.value.param == "model_type"


async def test_a_base_model_refuses_instructions_and_write(
    accounts: DeepLAccounts, record: RequestRecord, deadline: float
) -> None:
    base = FakeEngine(chat_template=False)
    deepl = DeepLService(accounts, translation_over(base))
    body = DeepLTranslateRequest(
        text=["Hello."], source_lang="EN", target_lang="DE", custom_instructions=["Be brief."]
    )
    with pytest.raises(InstructionsNotSupportedError) as refused:
        await deepl.translate(body, "alice", record, deadline)
    assert refused.value.param == "custom_instructions"
    with pytest.raises(InstructionsNotSupportedError):
        await deepl.write(WriteRequest(text=["Hello."]), "correct", "alice", record, deadline)
    assert base.requests == []
    assert (await deepl.usage("alice")).character_count == 0


async def test_write_improves_each_text_in_its_language_and_bills_it(
    deepl: DeepLService, engine: FakeEngine, record: RequestRecord, deadline: float
) -> None:
    english = "The meeting has been moved to Thursday afternoon, I think."
    body = WriteRequest(text=[GERMAN, english], writing_style="business")
    answer = await deepl.write(body, "rephrase", "alice", record, deadline)
    assert [(i.text, i.detected_source_language) for i in answer.improvements] == [
        (GERMAN.upper(), "de"),
        (english.upper(), "en"),
    ]
    assert all("business style" in prompt for prompt in prompts(engine))
    assert (await deepl.usage("alice")).character_count == len(GERMAN) + len(english)


async def test_a_key_owns_its_memories_only_where_keys_are_configured(
    accounts: DeepLAccounts, translation: TranslationService
) -> None:
    assert DeepLService(accounts, translation).owner("alice") == SHARED
    keyed = DeepLService(accounts, translation, keys=keys_required(True))
    assert keyed.owner("alice") == owner_of("alice") != keyed.owner("bob")
    with pytest.raises(AuthenticationError):
        keyed.owner("")


def test_languages_as_deepl_lists_them(deepl: DeepLService) -> None:
    sources = {language.language for language in deepl.languages("source")}
    targets = {language.language for language in deepl.languages("TARGET")}
    assert {"EN", "DE", "PT"} <= sources
    # As targets, English and Portuguese come as their variants only.
    assert {"EN-GB", "EN-US", "PT-BR", "PT-PT", "DE"} <= targets
    assert not {"EN", "PT"} & targets
    pairs = deepl.glossary_language_pairs().supported_languages
    assert all(pair.source_lang != pair.target_lang for pair in pairs)
    assert {(p.source_lang, p.target_lang) for p in pairs} >= {("en", "de"), ("de", "en")}


# -- glossaries and style rules ----------------------------------------------------------------
async def test_glossaries_of_one_pair_and_of_dictionaries_are_the_same_glossaries(
    deepl: DeepLService,
) -> None:
    glossaries = deepl.glossaries
    glossary_id = await _glossary(deepl, "alice", "cat\tKatze\ndog\tHund")
    assert (await glossaries.describe_v2("alice", glossary_id)).entry_count == 2
    assert await glossaries.entries_v2("alice", glossary_id) == "cat\tKatze\ndog\tHund"
    assert [g.glossary_id for g in (await glossaries.list_v3("alice")).glossaries] == [glossary_id]
    assert (await glossaries.list_v2("bob")).glossaries == []
    french = DictionaryBody(source_lang="EN", target_lang="FR", entries="cat\tchat")
    changed = await glossaries.change_v3(
        "alice", glossary_id, MultilingualGlossaryPatch(dictionaries=[french])
    )
    assert [(d.source_lang, d.target_lang) for d in changed.dictionaries] == [
        ("en", "de"),
        ("en", "fr"),
    ]
    entries = await glossaries.dictionary_entries("alice", glossary_id, "en", "FR")
    assert entries.dictionaries[0].entries == "cat\tchat"
    with pytest.raises(InvalidRequestError) as refused:
        await glossaries.dictionary_entries("alice", glossary_id, "en", None)
    assert (refused.value.message, refused.value.param) == ("Give `target_lang`.", "target_lang")
    with pytest.raises(InvalidRequestError):  # nothing to change
        await glossaries.change_v3("alice", glossary_id, MultilingualGlossaryPatch())
    await glossaries.delete_dictionary("alice", glossary_id, "EN", "FR")
    with pytest.raises(InvalidRequestError) as twice:
        await glossaries.create_v3(
            "alice", MultilingualGlossaryCreate(name="Twice", dictionaries=[french, french])
        )
    assert twice.value.param == "dictionaries"
    await glossaries.delete("alice", glossary_id)
    with pytest.raises(GlossaryNotFoundError):
        await glossaries.describe_v3("alice", glossary_id)


async def test_a_page_of_style_rules_holds_at_most_25_in_creation_order(
    deepl: DeepLService, monkeypatch: pytest.MonkeyPatch
) -> None:
    # All made in one millisecond: their ids alone keep the order they were made in.
    monkeypatch.setattr(style_rules, "_now", lambda: "2026-12-07T21:00:00.000Z")
    for number in range(27):
        await deepl.style_rules.create("alice", StyleRuleCreate(name=f"r{number}", language="de"))
    first = await deepl.style_rules.page("alice", 0, 100, detailed=False)
    second = await deepl.style_rules.page("alice", 1, 100, detailed=False)
    assert (len(first.style_rules), len(second.style_rules)) == (25, 2)
    listed = [rule.name for rule in first.style_rules + second.style_rules]
    assert listed == [f"r{number}" for number in range(27)]


# -- documents ---------------------------------------------------------------------------------
async def test_a_document_uses_its_glossary_and_is_billed_once_translated(
    accounts: DeepLAccounts,
    translation: TranslationService,
    make_documents: DocumentsFactory,
    engine: FakeEngine,
) -> None:
    documents = await make_documents(bill=accounts.usage.add)
    deepl = DeepLService(accounts, translation, documents)
    glossary_id = await _glossary(deepl, "alice")
    fields = {"target_lang": "DE", "source_lang": "EN", "glossary_id": glossary_id}
    job, key = await deepl.upload_document(Upload(SRT, "talk.srt", fields), "alice")
    done = await finished(documents, job, key)
    assert done.status == "done"
    assert all("Satz" in prompt for prompt in prompts(engine))
    # Billed once the job is recorded done: right after, not with it.
    async with asyncio.timeout(10):
        while (await deepl.usage("alice")).character_count != done.billed_characters:
            await asyncio.sleep(0.01)
    assert done.billed_characters > 0
    _, data = await deepl.document_result(job.id, key, "alice")
    assert b"SENTENCE NUMBER 12." in data
    await deepl.forget_document(job.id, key, "alice")  # as DeepL: gone once downloaded
    with pytest.raises(DocumentNotFoundError):
        await deepl.document_status(job.id, key, "alice")


@pytest.mark.parametrize(
    ("fields", "filename", "param", "message"),
    [
        ({}, "talk.srt", "target_lang", "Parameter 'target_lang' not specified."),
        (
            {"target_lang": "DE", "output_format": "docx"},
            "talk.srt",
            "output_format",
            "Documents are translated into their own format only.",
        ),
        (
            {"target_lang": "DE", "translation_memory_threshold": "80"},
            "talk.srt",
            "translation_memory_threshold",
            "`translation_memory_threshold` needs `translation_memory_id`.",
        ),
        (
            {"target_lang": "DE", "glossary_id": "g"},
            "talk.srt",
            "source_lang",
            "Use of a glossary requires the source_lang parameter to be specified.",
        ),
    ],
)
async def test_an_upload_is_refused_before_any_job_is_made(
    accounts: DeepLAccounts,
    translation: TranslationService,
    make_documents: DocumentsFactory,
    fields: dict[str, str],
    filename: str,
    param: str,
    message: str,
) -> None:
    documents = await make_documents()
    deepl = DeepLService(accounts, translation, documents)
    with pytest.raises(InvalidRequestError) as refused:
        await deepl.upload_document(Upload(SRT, filename, fields), "alice")
    assert (refused.value.param, refused.value.message) == (param, message)
    assert await documents.jobs.store.unfinished() == []


async def test_a_result_asked_for_too_early_is_deepl_s_503(
    accounts: DeepLAccounts,
    translation: TranslationService,
    make_documents: DocumentsFactory,
    engine: FakeEngine,
) -> None:
    documents = await make_documents()
    deepl = DeepLService(accounts, translation, documents)
    engine.hang = True
    job, key = await deepl.upload_document(Upload(SRT, "talk.srt", {"target_lang": "DE"}), "a")
    with pytest.raises(DocumentNotReadyYetError) as early:
        await deepl.document_result(job.id, key, "a")
    assert (early.value.status_code, early.value.code) == (503, "document_not_ready")
    engine.hang = False
    assert (await finished(documents, job, key)).status == "done"


async def test_where_keys_are_set_a_document_is_its_key_s_alone(
    accounts: DeepLAccounts, translation: TranslationService, make_documents: DocumentsFactory
) -> None:
    documents = await make_documents(keyed=True)
    deepl = DeepLService(accounts, translation, documents, keys=keys_required(True))
    job, key = await deepl.upload_document(Upload(SRT, "talk.srt", {"target_lang": "DE"}), "a")
    assert (await finished(documents, job, key, owner_of("a"))).status == "done"
    with pytest.raises(DocumentNotFoundError):
        await deepl.document_status(job.id, key, "b")
    assert (await deepl.document_status(job.id, key, "a")).status == "done"
