"""LibreTranslate's API over the translation service and the document jobs: what each of its
routes asks, in LibreTranslate's wire types and plain values. The routes read the request and
render the answer; nothing else."""

from __future__ import annotations

from typing import TYPE_CHECKING

from translate_server.accounts.directory import KeyDirectory
from translate_server.compat.libretranslate.protocol import (
    LIBRE_VARIANTS,
    FrontendLanguage,
    FrontendLanguages,
    FrontendSettings,
    LibreDetected,
    LibreDetectRequest,
    LibreLanguage,
    LibreTranslateRequest,
    LibreTranslateResponse,
    libre_detections,
)
from translate_server.documents.job_keys import KEY_ALONE
from translate_server.documents.upload import DocumentOrder, Upload
from translate_server.errors import ApiError
from translate_server.services import MissingServiceError
from translate_server.translation.protocol import DetectRequest

if TYPE_CHECKING:
    from translate_server.documents.job import Job
    from translate_server.documents.service import Documents
    from translate_server.observability.record import RequestRecord
    from translate_server.translation.service.translation_service import TranslationService


class FileTranslationFailedError(ApiError):
    """The file was accepted but its translation failed (LibreTranslate answers a 500 too)."""

    status_code = 500
    type = "server_error"
    code = "document_failed"


class LibreTranslateService:
    def __init__(
        self,
        translation: TranslationService,
        documents: Documents | None = None,
        *,
        keys: KeyDirectory | None = None,
        suggestions: bool = False,
    ) -> None:
        self.translation = translation
        # None where files are not translated (or this process forwards them to the one that
        # keeps the document jobs).
        self.documents = documents
        self.keys = keys or KeyDirectory()  # its page asks for a key where one is required
        self.suggestions = suggestions  # /suggest keeps them (--suggestions-memory)

    async def translate(
        self, body: LibreTranslateRequest, record: RequestRecord, deadline: float
    ) -> LibreTranslateResponse:
        response = await self.translation.translate(body.to_translate_request(), record, deadline)
        return LibreTranslateResponse.of(response)

    def detect(self, body: LibreDetectRequest) -> list[LibreDetected]:
        return libre_detections(self.translation.detect(DetectRequest(text=body.q)))

    def languages(self) -> list[LibreLanguage]:
        """Every language as a source and a target, LibreTranslate's own variants among them."""
        named = [
            (language.code, language.name) for language in self.translation.languages().languages
        ]
        languages = sorted([*named, *LIBRE_VARIANTS])
        codes = [code for code, _ in languages]
        return [LibreLanguage(code=code, name=name, targets=codes) for code, name in languages]

    def frontend_settings(self) -> FrontendSettings:
        files = self.documents is not None
        if files:
            # Imported only when documents are served: the formats pull in their libraries.
            from translate_server.documents.formats import known_extensions
        return FrontendSettings(
            charLimit=self.translation.limits.max_text_chars,
            frontendTimeout=500,
            apiKeys=self.keys.required,
            keyRequired=self.keys.required,
            suggestions=self.suggestions,
            filesTranslation=files,
            supportedFilesFormat=list(known_extensions()) if files else [],
            language=FrontendLanguages(
                source=FrontendLanguage(code="auto", name="Auto Detect"),
                target=FrontendLanguage(code="en", name="English"),
            ),
        )

    async def translate_file(self, upload: Upload, key: str) -> tuple[Job, str]:
        """The file translated, as LibreTranslate answers only then: its job, done, and the
        job's key; `key` is the API key it was let in with (whose job it is)."""
        documents = self._documents()
        order = DocumentOrder(
            target_lang=upload.required("target", "Invalid request: missing target parameter"),
            source_lang=upload.source_language("source"),
        )
        owner = documents.owner(key)
        job, document_key = await documents.submit(upload, order, owner)
        async for state in documents.jobs.watch(job.id, document_key, owner):
            job = state
        if job.status == "error":
            raise FileTranslationFailedError(job.error or "Translation failed.")
        return job, document_key

    async def translated_file(self, document_id: str, document_key: str) -> tuple[Job, bytes]:
        """A download link's file: the link's secret key alone authorizes it (it is followed
        without an API key, as a browser follows it)."""
        return await self._documents().jobs.result(document_id, document_key, owner=KEY_ALONE)

    def _documents(self) -> Documents:
        if self.documents is None:
            raise MissingServiceError("no documents are provided to LibreTranslate")
        return self.documents
