"""Google Cloud Translation over the translation service: its parameters checked and its
language codes mapped, each text translated or detected, answers in Google's terms.

Google never fails a batch for one text: a blank text comes back as it is, and so does one
whose language cannot be detected (as `und`), while the others are translated."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from translate_server.compat.google.codes import (
    UNDETERMINED,
    google_code,
    google_languages,
    language_names,
    ours,
)
from translate_server.compat.google.envelope import MISSING
from translate_server.compat.google.protocol import (
    PARAMS_V2,
    PARAMS_V3,
    GoogleDetection,
    GoogleDetections,
    GoogleDetectParams,
    GoogleDetectResponse,
    GoogleGlossaryConfig,
    GoogleLanguage,
    GoogleLanguages,
    GoogleLanguagesParams,
    GoogleLanguagesResponse,
    GoogleTranslateParams,
    GoogleTranslateResponse,
    GoogleTranslation,
    GoogleTranslations,
    GoogleV3DetectedLanguage,
    GoogleV3DetectRequest,
    GoogleV3DetectResponse,
    GoogleV3Language,
    GoogleV3Languages,
    GoogleV3TranslateRequest,
    GoogleV3TranslateResponse,
    GoogleV3Translation,
)
from translate_server.compat.google.resources import (
    ADAPTIVE_THRESHOLD,
    glossary_id,
)
from translate_server.errors import ApiError, InvalidRequestError
from translate_server.text.detection import SAMPLE_CHARS
from translate_server.text.languages import requested_language
from translate_server.translation.protocol import (
    DetectRequest,
    TranslateRequest,
)
from translate_server.translation.protocol import TranslateResponse as ServiceResponse

if TYPE_CHECKING:
    from translate_server.observability.record import RequestRecord
    from translate_server.translation.service.translation_service import TranslationService

# Google's own models, which here mean the served one.
GOOGLE_MODELS = frozenset({"nmt", "base", "general/nmt", "general/base", "general/translation-llm"})
MIME_TYPES = {"text/html": "html", "text/plain": "text"}
# Characters the detector reads on the event loop (about 2 ms per thousand); more in a thread.
THREAD_DETECT_CHARS = 4 * SAMPLE_CHARS


@dataclass(frozen=True, slots=True)
class Job:
    """One request's texts and how to translate them, in the service's terms; `names` gives
    each service parameter's name on the API asked (for the errors)."""

    texts: list[str]
    target: str
    source: str | None  # None: detected
    format: Literal["html", "text"]
    model: str | None  # None: the served model
    names: dict[str, str]
    owner: str = ""  # whose stored glossaries and memories it may name (owners.py)
    glossary_id: str | None = None  # a stored glossary (`glossaryConfig`)
    memory: str | None = None  # a translation memory (adaptive MT's `dataset`)
    examples: tuple[tuple[str, str], ...] = ()  # adaptive MT's reference sentences


@dataclass(frozen=True, slots=True)
class Translated:
    text: str
    detected: str | None  # Google's code, where the source was detected
    warnings: list[str] | None


class GoogleTranslator:
    def __init__(self, translation: TranslationService) -> None:
        self.translation = translation

    # -- v2 --------------------------------------------------------------------------------
    async def translate_v2(
        self, params: GoogleTranslateParams, record: RequestRecord, deadline: float
    ) -> GoogleTranslateResponse:
        if params.cid:
            raise InvalidRequestError("No AutoML customizations are served here.", param="cid")
        job = Job(
            texts=self.texts(params.q, "q"),
            target=language_tag(_required(params.target, "target"), "target"),
            source=language_tag(params.source, "source") if params.source else None,
            format=params.format or "html",
            model=_served_model(params.model),
            names=PARAMS_V2,
        )
        translated = await self.translate_job(job, record, deadline)
        return GoogleTranslateResponse(
            data=GoogleTranslations(
                translations=[
                    GoogleTranslation(
                        translatedText=t.text,
                        detectedSourceLanguage=t.detected,
                        model=params.model or None,
                        warnings=t.warnings,
                    )
                    for t in translated
                ]
            )
        )

    async def detect_v2(self, params: GoogleDetectParams) -> GoogleDetectResponse:
        texts = self.texts(params.q, "q")
        if sum(min(len(text), SAMPLE_CHARS) for text in texts) <= THREAD_DETECT_CHARS:
            found = self._detect_all(texts)
        else:
            # A hundred long texts are a few hundred milliseconds of detection: not on the loop.
            found = await asyncio.to_thread(self._detect_all, texts)
        return GoogleDetectResponse(
            data=GoogleDetections(
                detections=[[GoogleDetection(language=code, confidence=c)] for code, c in found]
            )
        )

    def languages_v2(self, params: GoogleLanguagesParams) -> GoogleLanguagesResponse:
        names = language_names(params.target, "target") if params.target else {}
        return GoogleLanguagesResponse(
            data=GoogleLanguages(
                languages=[
                    GoogleLanguage(language=code, name=names.get(code))
                    for code in google_languages()
                ]
            )
        )

    # -- v3 --------------------------------------------------------------------------------
    async def translate_v3(
        self,
        body: GoogleV3TranslateRequest,
        record: RequestRecord,
        deadline: float,
        owner: str = "",
    ) -> GoogleV3TranslateResponse:
        glossary = glossary_id(body.glossaryConfig)
        if body.transliterationConfig and body.transliterationConfig.get("enableTransliteration"):
            raise InvalidRequestError(
                "Transliteration is not served here.", param="transliterationConfig"
            )
        source = body.sourceLanguageCode
        job = Job(
            texts=self.texts(body.contents, "contents"),
            target=language_tag(
                _required(body.targetLanguageCode, "targetLanguageCode"), "targetLanguageCode"
            ),
            source=language_tag(source, "sourceLanguageCode") if source else None,
            format=mime_format(body.mimeType),
            model=_served_model(_model_id(body.model)),
            names=PARAMS_V3,
            owner=owner,
        )
        glossed = None
        if glossary is not None:
            # Google answers both: with the glossary, and without. The glossary's run first:
            # the pieces none of its terms occur in are then the cache's for the second.
            glossed = await self.translate_job(replace(job, glossary_id=glossary), record, deadline)
        translated = await self.translate_job(job, record, deadline)

        def answers(
            found: list[Translated], config: GoogleGlossaryConfig | None = None
        ) -> list[GoogleV3Translation]:
            return [
                GoogleV3Translation(
                    translatedText=t.text,
                    model=body.model or None,
                    detectedLanguageCode=t.detected,
                    glossaryConfig=config,
                    warnings=t.warnings,
                )
                for t in found
            ]

        return GoogleV3TranslateResponse(
            translations=answers(translated),
            glossaryTranslations=None if glossed is None else answers(glossed, body.glossaryConfig),
        )

    def detect_v3(self, body: GoogleV3DetectRequest) -> GoogleV3DetectResponse:
        mime_format(body.mimeType)
        code, confidence = self._detect(_required(body.content, "content"), "content")
        return GoogleV3DetectResponse(
            languages=[GoogleV3DetectedLanguage(languageCode=code, confidence=confidence)]
        )

    def languages_v3(self, display: str | None) -> GoogleV3Languages:
        names = language_names(display, "displayLanguageCode") if display else {}
        return GoogleV3Languages(
            languages=[
                GoogleV3Language(
                    languageCode=code,
                    displayName=names.get(code),
                    supportSource=True,
                    supportTarget=True,
                )
                for code in google_languages()
            ]
        )

    # -- shared ----------------------------------------------------------------------------
    def texts(self, texts: str | list[str] | None, param: str) -> list[str]:
        found = [texts] if isinstance(texts, str) else texts
        if not found:
            raise InvalidRequestError(
                f"`{param}` is required: the text to translate.", param=param, code=MISSING
            )
        limit = self.translation.limits.max_texts
        if len(found) > limit:
            raise InvalidRequestError(f"At most {limit} texts per request.", param=param)
        return found

    async def translate_job(
        self, job: Job, record: RequestRecord, deadline: float
    ) -> list[Translated]:
        """Each text's translation, in order. A text the detector cannot place is taken out of
        the batch and answered as it is, and the rest sent again (rarely: a text without
        letters, the usual case, is never sent)."""
        answers = [_as_it_is(text, job) for text in job.texts]
        pending = [i for i, answer in enumerate(answers) if answer is None]
        screened = False
        while pending:
            request = TranslateRequest(
                text=[job.texts[i] for i in pending],
                target_lang=job.target,
                source_lang=job.source or "auto",
                format=job.format,
                model=job.model,
                glossary_id=job.glossary_id,
                memory=job.memory,
                memory_threshold=ADAPTIVE_THRESHOLD,
            )
            try:
                response = await self.translation.translate(
                    request, record, deadline, owner=job.owner, examples=job.examples
                )
            except ApiError as exc:
                undetected = _undetected_index(exc)
                if undetected is None:
                    exc.param = _google_param(exc.param, job.names, pending)
                    raise
                kept = [pending.pop(undetected)]
                if not screened:
                    # Where there is one, there are often more: found in one pass over the
                    # rest, rather than a batch planned again for each.
                    kept += await asyncio.to_thread(self._unplaceable, job.texts, pending)
                    screened = True
                for i in kept:
                    answers[i] = Translated(job.texts[i], UNDETERMINED, None)
                pending = [i for i in pending if i not in kept]
                continue
            for n, i in enumerate(pending):
                answers[i] = _translated(response, n)
            break
        return [answer for answer in answers if answer is not None]

    def _unplaceable(self, texts: list[str], indexes: list[int]) -> list[int]:
        """The indexes of the texts in which the detector finds no language. (On a text's
        markup too: tags only add letters, so a text unplaceable with them is without.)"""
        return [i for i in indexes if not self.translation.detection.candidates(texts[i], 1)]

    def _detect_all(self, texts: list[str]) -> list[tuple[str, float]]:
        return [self._detect(text, f"q[{i}]") for i, text in enumerate(texts)]

    def _detect(self, text: str, param: str) -> tuple[str, float]:
        """The text's language as Google's code, and the confidence; `und` where it has no
        words to tell by."""
        if not text.strip():
            return UNDETERMINED, 0.0
        try:
            found = self.translation.detect(DetectRequest(text=text, max_candidates=1))
        except ApiError as exc:
            if exc.code == "language_not_detected":
                return UNDETERMINED, 0.0
            exc.param = param
            raise
        return google_code(found.language), found.confidence


def _as_it_is(text: str, job: Job) -> Translated | None:
    """The answer to a text that is not translated: a blank one, or one without a letter
    whose language was to be detected (numbers, codes). None for the others."""
    if not text.strip():
        return Translated(text, UNDETERMINED if job.source is None else None, None)
    if job.source is None and not any(char.isalpha() for char in text):
        return Translated(text, UNDETERMINED, None)
    return None


def _translated(response: ServiceResponse, n: int) -> Translated:
    """The batch's `n`th text's answer."""
    detected = response.detected_source_langs
    warnings = response.warnings[n] if response.warnings else None
    return Translated(
        text=(response.translations or [])[n],
        detected=google_code(detected[n].language) if detected else None,
        warnings=warnings if isinstance(warnings, list) and warnings else None,
    )


def _required(value: str | None, param: str) -> str:
    if not value:
        raise InvalidRequestError(f"`{param}` is required.", param=param, code=MISSING)
    return value


def language_tag(code: str, param: str) -> str:
    """Google's code as the service's tag; a 400 for a language that is not one."""
    return requested_language(ours(code), param).tag


def mime_format(mime_type: str | None) -> Literal["html", "text"]:
    if mime_type is None:
        return "html"  # Google's default
    found = MIME_TYPES.get(mime_type.strip().lower())
    if found is None:
        raise InvalidRequestError(
            f"`mimeType` is `text/html` or `text/plain`, not `{mime_type}`.", param="mimeType"
        )
    return "html" if found == "html" else "text"


def _model_id(model: str | None) -> str | None:
    """`projects/p/locations/l/models/general/nmt` -> `general/nmt`."""
    if model is None:
        return None
    _, found, model_id = model.partition("/models/")
    return model_id if found else model


def _served_model(model: str | None) -> str | None:
    """Google's own models are the served one; any other name is one of its adapters."""
    if not model or model.lower() in GOOGLE_MODELS:
        return None
    return model


def _undetected_index(exc: ApiError) -> int | None:
    """The batch index of the text whose language the detector could not tell."""
    if exc.code != "language_not_detected" or not (exc.param or "").startswith("text["):
        return None
    return int((exc.param or "")[5:-1])


def _google_param(param: str | None, names: dict[str, str], positions: list[int]) -> str | None:
    """The service's parameter as the client named it: `text[1]` of a batch without its blank
    texts is `q[3]`."""
    if param is None:
        return None
    name, bracket, rest = param.partition("[")
    google = names.get(name, name)
    if bracket and rest.endswith("]") and rest[:-1].isdigit() and int(rest[:-1]) < len(positions):
        return f"{google}[{positions[int(rest[:-1])]}]"
    return google
