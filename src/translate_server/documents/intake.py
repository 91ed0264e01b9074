"""A submitted file checked before any work, as `DocumentJobs.submit` takes it: its languages,
its format, that its format's library reads it, and its length; then the model it keeps for its
whole life, where there is a choice. Every refusal is a 4xx: 400 an unknown language, a file
unsupported or unreadable, 413 too long."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from translate_server.documents.formats import detect_format, extract
from translate_server.documents.formats.base import DocumentFormat
from translate_server.documents.job import DocumentOptions
from translate_server.documents.job_translation import Pin, format_options
from translate_server.errors import PayloadTooLargeError
from translate_server.text.languages import requested_language


@dataclass(frozen=True, slots=True)
class Intake:
    """What the checks found: the file's format, its segments' count and characters (what the
    job bills), and the options with the model pinned."""

    format: DocumentFormat
    segments: int
    characters: int
    options: DocumentOptions


async def checked(
    data: bytes,
    filename: str | None,
    target_lang: str,
    source_lang: str | None,
    options: DocumentOptions,
    *,
    max_characters: int | None,
    pin: Pin | None,
) -> Intake:
    """The file read as its format (off the loop: a library parses it) and checked."""
    requested_language(target_lang, "target_lang")
    if source_lang:
        requested_language(source_lang, "source_lang")
    fmt = detect_format(filename, data)
    extracted = await asyncio.to_thread(extract, fmt, data, format_options(target_lang, options))
    characters = sum(len(s) for s in extracted.segments)
    if max_characters is not None and characters > max_characters:
        raise PayloadTooLargeError(
            f"The document has {characters} characters to translate; at most {max_characters} "
            "are accepted.",
            param="file",
            code="document_too_long",
        )
    if pin is not None:  # may detect the source language: off the loop
        options = await asyncio.to_thread(
            pin, source_lang, target_lang, extracted.segments, options
        )
    return Intake(fmt, len(extracted.segments), characters, options)
