"""A document job as the rest of the code sees it: its status, its progress and the options a
client asked for. Records only; the store keeps them and the runner advances them."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

Status = Literal["queued", "translating", "done", "error"]
UNFINISHED: tuple[Status, ...] = ("queued", "translating")
# Segments listed in a finished job's review report (the count says how many there are).
REVIEW_ITEMS = 200
# Characters of a segment's source and translation shown in the report.
REVIEW_CHARS = 300


class DocumentOptions(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What a client asked for besides the languages; stored with the job."""

    formality: str | None = None
    glossary: dict[str, str] | None = None  # terms to translate as given
    # A stored glossary (`glossary_id`), read as it stands when each batch is translated,
    # and whose owner (owners.py) it is.
    glossary_id: str | None = None
    glossary_owner: str = ""
    retranslate: bool = False
    # A translation memory its segments are looked up in, whose owner (memory.service) it is.
    memory: str | None = None
    memory_threshold: float | None = None
    memory_owner: str = ""
    # Catalogs (PO, XLIFF): the file's translated entries are the memory of its untranslated
    # ones, where the job names no memory.
    file_memory: bool = True
    # Each segment translated with its neighbours (the segments before and after it in its
    # batch) as context: a request per segment.
    neighbours: bool = False
    # Where LoRA adapters are served, the model chosen when the job was created (an adapter's
    # name or the base model's), and the adapter's folder: every batch of the job goes to it.
    model: str | None = None
    adapter_path: str | None = None
    # The client's instructions to the model (DeepL's custom instructions and style rule,
    # resolved at upload; ours as on /translate), fenced into every batch's prompt.
    instructions: tuple[str, ...] = ()
    # As on /translate: answers written per piece, the best estimated kept; the least quality
    # estimate wanted (a piece under it is translated again).
    candidates: int = 1
    min_quality: float | None = None


class SegmentDetails(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What a segment's review shows besides its translation: the quality guard's warnings,
    how it matched the job's memory (`/translate`'s `memory_match`), and what a person did
    with it (`machine`: the machine's translation where they edited it; `approved`)."""

    warnings: tuple[str, ...] = ()
    memory_match: dict[str, Any] | None = None
    machine: str | None = None
    approved: bool = False


NO_DETAILS = SegmentDetails()


class SegmentTranslation(msgspec.Struct, frozen=True, array_like=True):
    """One segment's translation and how far to trust it (the translation's quality
    estimate: None where there is none, as for a blank segment kept as it was)."""

    text: str
    estimate: float | None = None
    needs_review: bool = False
    details: SegmentDetails = NO_DETAILS


class ReviewItem(msgspec.Struct, frozen=True, kw_only=True):
    """A segment whose translation a person should review, in a finished job's report."""

    segment: int  # its place among the file's segments, from 0
    estimate: float | None
    source: str
    translation: str


class Job(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    owner: str  # `owners.SHARED` where no API keys are configured
    status: Status
    format: str
    filename: str | None
    source_lang: str | None
    target_lang: str
    options: dict[str, Any]
    billed_characters: int
    billed_to: str | None  # whose usage the characters are added to once done (a key digest)
    segments_total: int
    segments_done: int
    segments_at_start: int  # done before this run started (by a run before a restart)
    created_at: float
    updated_at: float
    started_at: float | None
    finished_at: float | None
    error: str | None
    # Once done: how many segments need review, and the first of them (`REVIEW_ITEMS`).
    needs_review: int | None = None
    review: list[ReviewItem] | None = None

    @property
    def finished(self) -> bool:
        return self.status in ("done", "error")

    def seconds_remaining(self, now: float) -> float | None:
        """From this run's pace so far; None until its first batch is done."""
        if self.status == "done":
            return 0.0
        done_here = self.segments_done - self.segments_at_start
        if self.started_at is None or done_here <= 0:
            return None
        pace = (now - self.started_at) / done_here
        return pace * (self.segments_total - self.segments_done)
