"""Source-language detection with Lingua, whose language models ship inside its wheel.

Nothing is fetched at run time. The detector is built once per process and accuracy mode
(building takes seconds and hundreds of MB in high-accuracy mode) and shared by every app.
Detection is CPU work of a few milliseconds on the first `SAMPLE_CHARS` of a text.
"""

from __future__ import annotations

import asyncio
from functools import cache

import msgspec
from lingua import Language as LinguaLanguage
from lingua import LanguageDetector, LanguageDetectorBuilder

from translate_server.errors import LanguageNotDetectedError
from translate_server.text.languages import Language, resolve_language

# Enough text for a confident answer; long documents are not read to the end.
SAMPLE_CHARS = 1000


class Detection(msgspec.Struct, frozen=True):
    language: Language
    confidence: float  # 0..1


@cache
def _detector(accuracy: str) -> LanguageDetector:
    builder = LanguageDetectorBuilder.from_all_languages().with_preloaded_language_models()
    if accuracy == "low":
        builder = builder.with_low_accuracy_mode()
    return builder.build()


@cache
def detectable_languages() -> tuple[Language, ...]:
    """Every language the detector knows, sorted by tag."""
    languages = (
        resolve_language(lang.iso_code_639_1.name.lower()) for lang in LinguaLanguage.all()
    )
    return tuple(sorted(languages, key=lambda language: language.tag))


class LanguageDetection:
    def __init__(self, accuracy: str = "low") -> None:
        self.accuracy = accuracy

    async def warm(self) -> None:
        """Build the detector off the event loop, so the first request does not wait for it."""
        await asyncio.to_thread(_detector, self.accuracy)

    def candidates(self, text: str, limit: int = 3) -> list[Detection]:
        """The most likely languages of `text`, best first; empty when it has no words."""
        values = _detector(self.accuracy).compute_language_confidence_values(_sample(text))
        found = []
        for value in values[:limit]:
            confidence = round(value.value, 4)
            if confidence <= 0:
                break  # sorted, best first: the rest round to nothing too
            found.append(Detection(_language(value.language), confidence))
        return found

    def detect(self, text: str, param: str = "text", index: int | None = None) -> Detection:
        """The language of `text`, or a 400 that asks for `source_lang`; `index`: the text's
        place in its batch, carried by the error."""
        found = self.candidates(text, 1)
        if not found:
            raise LanguageNotDetectedError(
                "The language of the text could not be detected; give `source_lang`.",
                param=param,
                index=index,
            )
        return found[0]


@cache
def _language(language: LinguaLanguage) -> Language:
    """Lingua's language as ours (every answer's guard check resolves ten of them)."""
    return resolve_language(language.iso_code_639_1.name.lower())


def _sample(text: str) -> str:
    if len(text) <= SAMPLE_CHARS:
        return text
    cut = text.rfind(" ", 0, SAMPLE_CHARS)
    return text[: cut if cut > SAMPLE_CHARS // 2 else SAMPLE_CHARS]
