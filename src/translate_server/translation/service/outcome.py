"""How a text's pieces together end: untranslated where the deadline passed (kept, and said),
the worst finish reason of its pieces, and text lost across pieces that each passed alone."""

from __future__ import annotations

from collections.abc import Awaitable, Iterable, Sequence

from translate_server.errors import DeadlineExceededError
from translate_server.translation.guard.completeness import text_omission
from translate_server.translation.planning.plan import Piece, PieceResult

# A text some of whose pieces the deadline left untranslated.
PARTIAL = "partial"
DEADLINE_WARNING = "deadline_exceeded"
# Finish reasons of a text's pieces, the one that says most first.
_PRECEDENCE = (PARTIAL, "length")


async def or_untranslated(translation: Awaitable[PieceResult], piece: Piece) -> PieceResult:
    """The piece's translation, or the piece itself, said to be untranslated, once the
    request's deadline has passed."""
    try:
        return await translation
    except DeadlineExceededError:
        return PieceResult(piece.text, PARTIAL, warnings=(DEADLINE_WARNING,))


def nothing_translated() -> DeadlineExceededError:
    return DeadlineExceededError(
        "The request did not finish within its deadline and was "
        "aborted; nothing of it was translated."
    )


def worst_finish_reason(reasons: Iterable[str]) -> str:
    found = set(reasons)
    return next((reason for reason in _PRECEDENCE if reason in found), "stop")


def lost_text(
    target_lang: str, source_lang: str, sources: Sequence[str], results: Sequence[PieceResult]
) -> bool:
    """Whether a long text's pieces, each fine alone, lost much of it together (its markup
    and layout not counted)."""
    if not results or any(r.finish_reason == PARTIAL for r in results):
        return False  # an untranslated piece is said already
    answer_chars = sum(len(r.text.strip()) for r in results)
    return text_omission(sum(map(len, sources)), answer_chars, source_lang, target_lang)
