"""LibreTranslateService driven directly, as its routes drive it: texts, detection, languages,
its page's settings and files, over the engine double and real document jobs. The wire (forms,
`api_key`, error shapes) is the integration tests'."""

from __future__ import annotations

import pytest

from translate_server.compat.libretranslate.protocol import (
    LibreDetectRequest,
    LibreTranslateRequest,
)
from translate_server.compat.libretranslate.service import (
    FileTranslationFailedError,
    LibreTranslateService,
)
from translate_server.documents.upload import Upload
from translate_server.errors import DocumentNotFoundError, InvalidRequestError
from translate_server.observability.record import RequestRecord
from translate_server.owners import owner_of
from translate_server.translation.service.translation_service import TranslationService

from tests.support.compat_services import SRT, DocumentsFactory, keys_required, prompts
from tests.support.fakes import FakeEngine

GERMAN = "Guten Morgen, wie geht es dir heute?"


async def test_texts_are_translated_between_libretranslate_s_codes(
    translation: TranslationService, engine: FakeEngine, record: RequestRecord, deadline: float
) -> None:
    libre = LibreTranslateService(translation)
    one = await libre.translate(LibreTranslateRequest(q=GERMAN, target="pb"), record, deadline)
    assert one.translatedText == GERMAN.upper()
    assert one.detectedLanguage is not None and one.detectedLanguage.language == "de"
    assert 50 < one.detectedLanguage.confidence <= 100  # a percentage, as LibreTranslate's
    assert "Portuguese (Brazil)" in prompts(engine)[0]  # `pb` is ours `pt-BR`
    batch = await libre.translate(
        LibreTranslateRequest(q=["Hello.", "Bye."], source="en", target="de", alternatives=1),
        record,
        deadline,
    )
    assert batch.translatedText == ["HELLO.", "BYE."]
    assert batch.alternatives is not None and len(batch.alternatives) == 2


def test_detection_answers_each_candidate_as_a_percentage(
    translation: TranslationService,
) -> None:
    found = LibreTranslateService(translation).detect(LibreDetectRequest(q=GERMAN))
    assert found[0].language == "de"
    assert all(0 < candidate.confidence <= 100 for candidate in found)
    assert [c.confidence for c in found] == sorted((c.confidence for c in found), reverse=True)


def test_every_language_is_a_source_and_a_target_under_its_own_codes(
    translation: TranslationService,
) -> None:
    languages = LibreTranslateService(translation).languages()
    codes = [language.code for language in languages]
    assert codes == sorted(codes)
    assert {"pb", "zt", "de", "en"} <= set(codes)
    assert all(language.targets == codes for language in languages)


async def test_the_page_is_told_of_files_and_keys_as_served(
    translation: TranslationService, make_documents: DocumentsFactory
) -> None:
    plain = LibreTranslateService(translation).frontend_settings()
    assert (plain.filesTranslation, plain.supportedFilesFormat, plain.keyRequired) == (
        False,
        [],
        False,
    )
    assert plain.charLimit == translation.limits.max_text_chars
    documents = await make_documents()
    served = LibreTranslateService(
        translation, documents, keys=keys_required(True)
    ).frontend_settings()
    assert served.filesTranslation and ".srt" in served.supportedFilesFormat
    assert served.apiKeys and served.keyRequired


async def test_a_file_is_answered_once_translated_and_its_link_needs_no_api_key(
    translation: TranslationService, make_documents: DocumentsFactory
) -> None:
    documents = await make_documents(keyed=True)
    libre = LibreTranslateService(translation, documents, keys=keys_required(True))
    upload = Upload(SRT, "talk.srt", {"target": "de", "source": "auto"})
    job, key = await libre.translate_file(upload, "alice")
    assert (job.status, job.owner, job.source_lang) == ("done", owner_of("alice"), None)
    downloaded, data = await libre.translated_file(job.id, key)
    assert downloaded.id == job.id and b"SENTENCE NUMBER 1." in data
    with pytest.raises(DocumentNotFoundError):
        await libre.translated_file(job.id, "not-its-key")


async def test_a_file_without_a_target_is_refused_in_libretranslate_s_words(
    translation: TranslationService, make_documents: DocumentsFactory
) -> None:
    libre = LibreTranslateService(translation, await make_documents())
    with pytest.raises(InvalidRequestError) as refused:
        await libre.translate_file(Upload(SRT, "talk.srt", {"source": "en"}), "")
    assert (refused.value.message, refused.value.param) == (
        "Invalid request: missing target parameter",
        "target",
    )


async def test_a_file_whose_translation_fails_is_a_500(
    translation: TranslationService, make_documents: DocumentsFactory, engine: FakeEngine
) -> None:
    libre = LibreTranslateService(translation, await make_documents())
    engine.alive = False
    with pytest.raises(FileTranslationFailedError) as failed:
        await libre.translate_file(Upload(SRT, "talk.srt", {"target": "de", "source": "en"}), "")
    assert (failed.value.status_code, failed.value.code) == (500, "document_failed")
