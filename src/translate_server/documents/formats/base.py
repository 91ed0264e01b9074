"""What every format handler gives: the text segments of a file and a way to put their
translations back into a file of the same format."""

from __future__ import annotations

import codecs
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import charset_normalizer
import msgspec

from translate_server.errors import InvalidDocumentError
from translate_server.translation.segmentation.segments import Document


class FormatOptions(msgspec.Struct, frozen=True, kw_only=True):
    """What a handler may need beyond the bytes: the target language (a catalog's plural
    forms depend on it) and whether entries that already have a translation are redone."""

    target_lang: str | None = None
    retranslate: bool = False


class SegmentReview(msgspec.Struct, frozen=True):
    """How far to trust one segment's translation: its quality estimate (None: unknown) and
    whether a person should review it."""

    estimate: float | None
    needs_review: bool


class Extracted(ABC):
    """The segments to translate, in order; `rebuild` takes one translation per segment."""

    segments: list[str]
    # The file's own translations (source, target) that are not segments (a catalog's
    # translated entries): a memory for its segments.
    known: list[tuple[str, str]] = []  # noqa: RUF012 - never changed in place
    # What the model is told about each segment, where the format knows (a key's
    # description, a plural form's category): empty, or one per segment.
    contexts: list[str | None] = []  # noqa: RUF012 - never changed in place

    @abstractmethod
    def rebuild(self, translations: Sequence[str]) -> bytes: ...

    def rebuild_reviewed(
        self, translations: Sequence[str], reviews: Sequence[SegmentReview]
    ) -> bytes:
        """As `rebuild`, knowing which translations need review: a format that can say so in
        the file (a catalog's fuzzy flag, XLIFF's states) marks those, and only those."""
        return self.rebuild(translations)

    def check(self, translations: Sequence[str]) -> None:
        if len(translations) != len(self.segments):
            raise ValueError(f"{len(translations)} translations for {len(self.segments)} segments")


@dataclass(frozen=True)
class DocumentFormat:
    """One supported format: its name (as stored with a job), the file name extensions it
    is recognised by, its media type, its handler and, optionally, a content sniffer."""

    name: str
    extensions: tuple[str, ...]
    media_type: str
    extract: Callable[[bytes, FormatOptions], Extracted]
    sniff: Callable[[bytes], bool] | None = None


@dataclass(frozen=True)
class TextEncoding:
    """How a text file was encoded. Files that are not UTF-8 are read with the encoding
    charset-normalizer finds, and written back as UTF-8: a translation may hold characters
    the original code page cannot encode."""

    bom: bool

    def encode(self, text: str) -> bytes:
        return (codecs.BOM_UTF8 if self.bom else b"") + text.encode("utf-8")


def decode_text(data: bytes) -> tuple[str, TextEncoding]:
    bom = data.startswith(codecs.BOM_UTF8)
    try:
        return data.decode("utf-8-sig"), TextEncoding(bom)
    except UnicodeDecodeError:
        pass
    best = charset_normalizer.from_bytes(data).best()
    if best is None:
        raise InvalidDocumentError(
            "The document is not text in an encoding this server recognises."
        )
    return str(best), TextEncoding(bom=False)


class TextExtracted(Extracted):
    """A text document whose pieces are its segments and whose layout holds the rest."""

    def __init__(self, document: Document, encoding: TextEncoding) -> None:
        self.document = document
        self.encoding = encoding
        self.segments = document.pieces

    def rebuild(self, translations: Sequence[str]) -> bytes:
        self.check(translations)
        return self.encoding.encode(self.document.assemble(translations))
