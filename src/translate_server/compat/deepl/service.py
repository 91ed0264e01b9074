"""DeepL's API over the server's services: the translation service, the document jobs and what
DeepL keeps per API key (accounts.py). Its routes read the request and the key and render the
answer; everything between is here: whose things a key's requests touch, the glossaries and
instructions a translation names, the texts whose language cannot be detected, Write, usage,
billing, documents, glossaries and style rules.

A key is the one its client presented (`Authorization: DeepL-Auth-Key`, or `auth_key`): usage,
glossaries and style rules are kept per key even where the server configures none; the
translation memories and document jobs it may use are its own only where keys are configured.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import msgspec

from translate_server.accounts.directory import KeyDirectory
from translate_server.compat.deepl.accounts import UNLIMITED, DeepLAccounts
from translate_server.compat.deepl.glossary_service import DeepLGlossaries
from translate_server.compat.deepl.languages_v3 import (
    LanguageResource,
    Served,
    V3Language,
    languages,
    resources,
)
from translate_server.compat.deepl.memory_service import DeepLMemories
from translate_server.compat.deepl.protocol import (
    DeepLLanguage,
    DeepLTranslateRequest,
    DeepLTranslateResponse,
    DeepLUsage,
    GlossaryLanguagePair,
    GlossaryLanguagePairs,
    deepl_languages,
)
from translate_server.compat.deepl.style_service import DeepLStyleRules
from translate_server.compat.deepl.styling import (
    Styling,
    requested_instructions,
    styled_instructions,
)
from translate_server.compat.deepl.write import DeepLWrite, Task, WriteRequest, WriteResponse
from translate_server.documents.upload import DocumentOrder, Upload
from translate_server.errors import (
    ApiError,
    DocumentNotReadyError,
    InvalidRequestError,
    LanguageNotDetectedError,
)
from translate_server.limits.ticket import charge, month_standing
from translate_server.owners import SHARED
from translate_server.services import MissingServiceError
from translate_server.text.detection import detectable_languages

if TYPE_CHECKING:
    from collections.abc import Sequence

    from translate_server.documents.job import Job
    from translate_server.documents.service import Documents
    from translate_server.memory.service import Memories
    from translate_server.observability.record import RequestRecord
    from translate_server.translation.protocol import TranslateRequest, TranslateResponse
    from translate_server.translation.service.translation_service import TranslationService

# DeepL's names for an upload's memory fields.
_MEMORY_FIELDS = ("translation_memory_id", "translation_memory_threshold")


class DocumentNotReadyYetError(ApiError):
    """DeepL answers a download before the document is done with a 503, which its clients
    read as "not ready yet" (a 409 would be an unexpected error to them)."""

    status_code = 503
    type = "server_error"
    code = "document_not_ready"


class DeepLService:
    def __init__(
        self,
        accounts: DeepLAccounts,
        translation: TranslationService,
        documents: Documents | None = None,
        memories: Memories | None = None,
        *,
        keys: KeyDirectory | None = None,
    ) -> None:
        self.accounts = accounts
        self.translation = translation
        # The documents and memories are None where they are not served here (not at all, or
        # this process forwards their requests to the one that keeps them).
        self.documents = documents
        self._memories = DeepLMemories(memories) if memories is not None else None
        self.keys = keys or KeyDirectory()  # none: no key is required
        # As DeepL's own: a glossary is the presented key's account's, even where no keys are
        # required (then each key is an account).
        self.glossaries = DeepLGlossaries(accounts.glossaries, accounts.owner_of)
        self.style_rules = DeepLStyleRules(accounts.style_rules)
        self._write = DeepLWrite(translation)

    @property
    def translation_memories(self) -> DeepLMemories:
        if self._memories is None:
            raise MissingServiceError("no translation memories are provided to DeepL")
        return self._memories

    def owner(self, key: str) -> str:
        """Whose translation memories a key's requests use: its account's where keys are
        required, else the one shared owner's."""
        return self.keys.owner_of_key(key)

    # -- texts -----------------------------------------------------------------------------
    async def translate(
        self, body: DeepLTranslateRequest, key: str, record: RequestRecord, deadline: float
    ) -> DeepLTranslateResponse:
        """The texts translated with the glossaries, style rule and instructions they name,
        their characters billed to `key`."""
        glossary_ids = await self.glossaries.resolve(
            key, body.glossary_id, body.glossary_ids, body.source_lang, body.target_lang
        )
        instructions = await requested_instructions(body, key, self.accounts, self.translation)
        request = body.to_translate_request(glossary_ids, instructions)
        owner = self.owner(key) if request.memory is not None else SHARED
        response, kept = await self._translate_detectable(
            request, record, deadline, owner, self.accounts.owner_of(key)
        )
        await self._bill(key, body.text)
        return DeepLTranslateResponse.of(body, response, kept)

    async def _translate_detectable(
        self,
        request: TranslateRequest,
        record: RequestRecord,
        deadline: float,
        owner: str,
        glossary_owner: str | None = None,
    ) -> tuple[TranslateResponse, dict[int, str]]:
        """As DeepL does, a batch in which some texts' language cannot be detected translates
        the others; those come back as they are, in the second value (index -> the target
        language). Only where no text is left is the 400 answered."""
        texts = list(request.text) if isinstance(request.text, list) else [request.text]
        remaining = list(range(len(texts)))
        kept: dict[int, str] = {}
        while True:
            batch = msgspec.structs.replace(request, text=[texts[i] for i in remaining])
            try:
                response = await self.translation.translate(
                    batch, record, deadline, owner=owner, glossary_owner=glossary_owner
                )
            except LanguageNotDetectedError as undetected:
                if undetected.index is None or len(remaining) == 1:
                    raise
                kept[remaining.pop(undetected.index)] = request.target_lang.split("-")[0]
            else:
                return response, kept

    async def write(
        self,
        body: WriteRequest,
        task: Task,
        key: str,
        record: RequestRecord,
        deadline: float,
    ) -> WriteResponse:
        """DeepL Write: the texts improved (`rephrase`) or corrected, billed to `key`."""
        await charge(sum(len(text) for text in body.text), ("", body.target_lang or ""))
        response = await self._write.improve(body, task, record, deadline)
        await self._bill(key, body.text)
        return response

    async def _bill(self, key: str, texts: Sequence[str]) -> None:
        # Shielded: work done is billed even where its client leaves meanwhile (the route
        # cancels what it awaits when it does).
        await asyncio.shield(self.accounts.bill(key, sum(len(text) for text in texts)))

    # -- what the server serves, and what a key has used -----------------------------------
    def languages(self, kind: str) -> list[DeepLLanguage]:
        """The source languages, or with `kind` "target" the targets (with the model's
        measured support)."""
        return deepl_languages(
            list(detectable_languages()), kind.lower(), self.translation.planner.support
        )

    def languages_v3(self, resource: str | None, include: Sequence[str]) -> list[V3Language]:
        """/v3/languages: `resource`'s languages, from the same list as /v2/languages."""
        return languages(
            resource,
            include,
            self._served(),
            detectable_languages(),
            self.translation.planner.support,
        )

    def language_resources(self) -> list[LanguageResource]:
        return resources(self._served())

    def _served(self) -> Served:
        return Served(
            documents=self.documents is not None,
            instructions=self.translation.planner.follows_instructions,
            memories=self._memories is not None,
        )

    def glossary_language_pairs(self) -> GlossaryLanguagePairs:
        tags = [language.code for language in self.translation.languages().languages]
        return GlossaryLanguagePairs(
            supported_languages=[
                GlossaryLanguagePair(source_lang=source, target_lang=target)
                for source in tags
                for target in tags
                if source != target
            ]
        )

    async def usage(self, key: str) -> DeepLUsage:
        """Characters billed to the key by its texts and, once translated, its documents,
        counted across restarts; where the caller has a monthly quota, this month's count
        and its limit (the tighter of its key's and its account's)."""
        quota = await month_standing()
        if quota is not None:
            return DeepLUsage(character_count=quota[0], character_limit=quota[1])
        return DeepLUsage(
            character_count=await self.accounts.characters(key), character_limit=UNLIMITED
        )

    # -- documents -------------------------------------------------------------------------
    async def upload_document(self, upload: Upload, key: str) -> tuple[Job, str]:
        """A document job from DeepL's upload form: its glossary (`glossary_id`) and style
        rule (`style_id`) are read now and kept with the job, with `custom_instructions`,
        whatever happens to them later; its characters are billed to `key` once translated.
        The job and its key."""
        documents = self._documents()
        target = upload.required("target_lang", "Parameter 'target_lang' not specified.")
        wanted = upload.value("output_format")
        if wanted and not (upload.filename or "").lower().endswith("." + wanted.lower()):
            raise InvalidRequestError(
                "Documents are translated into their own format only.", param="output_format"
            )
        source = upload.value("source_lang")
        memory = await documents.memory(
            upload.value(_MEMORY_FIELDS[0]),
            upload.value(_MEMORY_FIELDS[1]),
            self.owner(key),
            names=_MEMORY_FIELDS,
        )
        glossary_id = upload.value("glossary_id")
        await self.glossaries.check(key, glossary_id, source, target)
        styling = Styling(
            upload.lists.get("custom_instructions"), upload.value("style_id"), source, target
        )
        instructions = await styled_instructions(styling, key, self.accounts, self.translation)
        order = DocumentOrder(
            target_lang=target,
            source_lang=source,
            formality=upload.value("formality"),
            glossary_id=glossary_id,
            glossary_owner=self.accounts.owner_of(key),
            instructions=tuple(instructions),
            memory=memory,
            billed_to=self.accounts.owner_of(key),
        )
        return await documents.submit(upload, order, documents.owner(key))

    async def document_status(self, document_id: str, document_key: str, key: str) -> Job:
        documents = self._documents()
        return await documents.jobs.status(document_id, document_key, documents.owner(key))

    async def document_result(
        self, document_id: str, document_key: str, key: str
    ) -> tuple[Job, bytes]:
        """The translated document; a 503 until it is done, as DeepL answers. Once sent, it
        is deleted (`forget_document`)."""
        documents = self._documents()
        try:
            return await documents.jobs.result(document_id, document_key, documents.owner(key))
        except DocumentNotReadyError as exc:
            raise DocumentNotReadyYetError(exc.message, param=exc.param) from None

    async def forget_document(self, document_id: str, document_key: str, key: str) -> None:
        documents = self._documents()
        await documents.jobs.forget(document_id, document_key, documents.owner(key))

    def _documents(self) -> Documents:
        if self.documents is None:
            raise MissingServiceError("no documents are provided to DeepL")
        return self.documents
