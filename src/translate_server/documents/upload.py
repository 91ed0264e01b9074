"""A document upload as every surface hands it on, in plain values: the multipart form read
once (`Upload`, by `documents.route_helpers.read_upload`), and what it asks for in the terms every
surface shares (`DocumentOrder`), which `Documents.submit` turns into a job. Each surface maps
only its own field names and its own extras onto the order."""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from translate_server.documents.job import DocumentOptions
from translate_server.documents.job_memory import JobMemory
from translate_server.errors import InvalidRequestError

_YES = ("1", "true", "yes", "on")
_NO = ("0", "false", "no", "off")


@dataclass(frozen=True, slots=True)
class Upload:
    """The form's file and its other fields."""

    data: bytes
    filename: str | None
    fields: dict[str, str]  # a field sent more than once: its last value
    # Every value of each field, in order: a client sends a list as the field repeated.
    lists: dict[str, list[str]] = field(default_factory=dict)

    def value(self, name: str) -> str | None:
        """The field's value; None where it is missing or empty."""
        return self.fields.get(name) or None

    def required(self, name: str, message: str) -> str:
        """A field the upload must have; a 400 with the surface's own `message` otherwise."""
        value = self.fields.get(name)
        if not value:
            raise InvalidRequestError(message, param=name)
        return value

    def source_language(self, name: str) -> str | None:
        """A source language where `auto`, like none, asks for detection."""
        value = self.fields.get(name)
        return None if value in (None, "", "auto") else value

    def number(
        self, name: str, kind: type[int] | type[float], low: float, high: float
    ) -> int | float | None:
        """A number field within [low, high]; None where it is missing or blank."""
        raw = self.fields.get(name)
        if raw is None or not raw.strip():
            return None
        try:
            value: int | float | None = kind(raw)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise InvalidRequestError(f"`{name}` is a number from {low:g} to {high:g}.", param=name)
        return value

    def flag(self, name: str, *, default: bool) -> bool:
        """A yes-or-no field: only a clear no turns a default yes off, and the reverse."""
        value = self.fields.get(name, "").lower()
        return value not in _NO if default else value in _YES


@dataclass(frozen=True, slots=True)
class DocumentOrder:
    """What an upload asks for besides its file, read and checked from its surface's fields."""

    target_lang: str
    source_lang: str | None = None  # None: detected
    formality: str | None = None
    glossary: dict[str, str] | None = None  # terms to translate as given
    # A stored glossary, checked at upload (`Documents.glossary`), and its owner.
    glossary_id: str | None = None
    glossary_owner: str = ""
    instructions: tuple[str, ...] = ()  # checked, as the model will be given them
    memory: JobMemory = field(default_factory=JobMemory)  # checked: the owner has it
    # Catalogs: entries that have a translation translated again; the file's own translated
    # entries as the memory of the others. Neighbouring segments as each one's context.
    retranslate: bool = False
    file_memory: bool = True
    neighbours: bool = False
    # As on /translate: answers written per piece, the best estimated kept; the least quality
    # estimate wanted (a piece under it is translated again).
    candidates: int = 1
    min_quality: float | None = None
    # Whose usage the job's characters are added to once translated (a key's digest).
    billed_to: str | None = None

    def options(self) -> DocumentOptions:
        return DocumentOptions(
            formality=self.formality,
            glossary=self.glossary,
            glossary_id=self.glossary_id,
            glossary_owner=self.glossary_owner,
            retranslate=self.retranslate,
            file_memory=self.file_memory,
            neighbours=self.neighbours,
            instructions=self.instructions,
            candidates=self.candidates,
            min_quality=self.min_quality,
            **msgspec.structs.asdict(self.memory),
        )
