"""The supported document formats, and which one a file is.

A file name's extension decides; a file without one is recognised by its content (Office
archives by their parts, subtitles, catalogs, XLIFF, Android strings and HTML by how they
begin, anything else that is text as plain text). Software localization files (`l10n`:
JSON, ARB, Apple's, YAML, properties, resx, Qt, CSV) are known by their extensions. Every
other file is a 400 `unsupported_document_format`.
"""

from __future__ import annotations

import os

from translate_server.documents.formats import (
    docx,
    html,
    markdown,
    po,
    pptx,
    srt,
    text,
    webvtt,
    xliff,
)
from translate_server.documents.formats.base import (
    DocumentFormat,
    Extracted,
    FormatOptions,
    decode_text,
)
from translate_server.documents.formats.l10n import (
    android,
    apple,
    csv_files,
    json_files,
    properties,
    qt,
    resx,
    xcstrings,
    yaml_files,
)
from translate_server.errors import (
    ApiError,
    InvalidDocumentError,
    UnsupportedDocumentFormatError,
)

__all__ = [
    "FORMATS",
    "DocumentFormat",
    "Extracted",
    "FormatOptions",
    "detect_format",
    "extract",
    "format_named",
]

# Sniffing order: the most specific signatures first; plain text is the fallback.
FORMATS: tuple[DocumentFormat, ...] = (
    docx.FORMAT,
    pptx.FORMAT,
    xliff.FORMAT,
    android.FORMAT,
    webvtt.FORMAT,
    srt.FORMAT,
    po.FORMAT,
    html.FORMAT,
    markdown.FORMAT,
    text.FORMAT,
    # Localization files: known by their extensions only.
    json_files.JSON_FORMAT,
    json_files.ARB_FORMAT,
    apple.STRINGS_FORMAT,
    apple.STRINGSDICT_FORMAT,
    xcstrings.FORMAT,
    yaml_files.FORMAT,
    properties.FORMAT,
    resx.FORMAT,
    qt.FORMAT,
    csv_files.FORMAT,
)
_BY_NAME = {fmt.name: fmt for fmt in FORMATS}
_BY_EXTENSION = {extension: fmt for fmt in FORMATS for extension in fmt.extensions}


def known_extensions() -> tuple[str, ...]:
    """The file name extensions the formats know (".srt", ...), sorted."""
    return tuple(sorted(_BY_EXTENSION))


def supported_extensions() -> str:
    return ", ".join(known_extensions())


def detect_format(filename: str | None, data: bytes) -> DocumentFormat:
    extension = os.path.splitext(filename or "")[1].lower()
    if extension:
        found = _BY_EXTENSION.get(extension)
        if found is None:
            raise _unsupported(f"Files of type `{extension}` cannot be translated.")
        return found
    for fmt in FORMATS:
        if fmt.sniff is not None and fmt.sniff(data):
            return fmt
    if b"\x00" not in data[:8192]:
        try:
            decode_text(data)
            return text.FORMAT
        except ApiError:
            pass
    raise _unsupported("The file's format was not recognised.")


def format_named(name: str) -> DocumentFormat:
    """A stored job's format, by the name it was stored with."""
    return _BY_NAME[name]


def extract(fmt: DocumentFormat, data: bytes, options: FormatOptions) -> Extracted:
    """The file's segments; a file its library cannot read is a 400, never a 500."""
    try:
        return fmt.extract(data, options)
    except ApiError:
        raise
    except Exception as exc:  # each library has its own errors for a corrupt file
        raise InvalidDocumentError(
            f"The file cannot be read as {fmt.name.upper()}: {exc}", param="file"
        ) from exc


def _unsupported(reason: str) -> UnsupportedDocumentFormatError:
    return UnsupportedDocumentFormatError(
        f"{reason} Supported formats: {supported_extensions()}.", param="file"
    )
