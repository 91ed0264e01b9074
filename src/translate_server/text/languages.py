"""Language tags: validation and the names a model understands, from the langcodes registry."""

from __future__ import annotations

from functools import lru_cache

import langcodes
import msgspec

from translate_server.errors import InvalidRequestError


class Language(msgspec.Struct, frozen=True):
    tag: str  # normalized BCP-47, e.g. "pt-BR"
    name: str  # English name the prompt uses, e.g. "Portuguese (Brazil)"


class UnknownLanguageError(ValueError):
    pass


@lru_cache(maxsize=1024)
def requested_language(code: str, param: str) -> Language:
    """The language a request names in `param`; a 400 `unsupported_language` otherwise."""
    try:
        return resolve_language(code)
    except UnknownLanguageError as exc:
        raise InvalidRequestError(f"{exc}.", param=param, code="unsupported_language") from None


@lru_cache(maxsize=1024)
def resolve_language(code: str) -> Language:
    """`pt_br` -> Language("pt-BR", "Portuguese (Brazil)"); raises UnknownLanguageError.

    Remembered: the quality guard resolves each language its detector finds, on every answer,
    and langcodes' display name is not cheap (a failure is raised again, never remembered)."""
    try:
        parsed = langcodes.Language.get(code.strip())
    except (ValueError, langcodes.tag_parser.LanguageTagError) as exc:
        raise UnknownLanguageError(f"`{code}` is not a BCP-47 language tag") from exc
    if not parsed.is_valid() or parsed.language in (None, "und"):
        raise UnknownLanguageError(f"`{code}` is not a known language")
    name = parsed.display_name()
    if name.startswith("Unknown language"):
        raise UnknownLanguageError(f"`{code}` is not a known language")
    return Language(tag=parsed.to_tag(), name=name)
