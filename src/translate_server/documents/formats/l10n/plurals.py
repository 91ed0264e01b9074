"""A target language's plural categories, from CLDR's rules as Babel ships them.

A source plural group (English `one`/`other`) becomes one form per category of the target
language (Polish `one`/`few`/`many`/`other`, Arabic's six, Japanese `other` alone), each
translated from the source form of the same category where there is one, else from `other`,
with its category and a number it is used for in the translation's context ("few: 3").
"""

from __future__ import annotations

import functools

from babel import Locale, UnknownLocaleError
from babel.plural import PluralRule

# CLDR's order of categories; `other` is every language's.
CATEGORIES = ("zero", "one", "two", "few", "many", "other")
# Numbers tried, in order, for a category's sample: small integers first, then round ones
# (French `many` is 1000000), then decimals (Polish `other` holds only fractions).
_SAMPLES = (*range(1, 200), 0, 1000, 10000, 100000, 1000000, 1.5, 0.5, 2.5)


@functools.cache
def categories(language: str | None) -> tuple[str, ...]:
    """The plural categories of `language` (a tag such as `pl`, `pt-BR`, `zh_Hant`), in
    CLDR's order; an unknown language gets English's."""
    rule = _rule(language)
    return tuple(
        category for category in CATEGORIES if category in rule.tags or category == "other"
    )


@functools.cache
def sample(language: str | None, category: str) -> str:
    """A number `language` uses `category` for, as text ("3" for Polish `few`)."""
    rule = _rule(language)
    for number in _SAMPLES:
        if rule(number) == category:
            return str(number)
    return "n"


def locale_tag(language: str, separator: str = "-") -> str:
    """A language code as locale files write it (`PT-BR` -> `pt-BR`, `zh_hant` -> `zh-Hant`),
    its parts joined by `separator`."""
    parts = language.replace("_", "-").split("-")
    rest = [p.title() if len(p) == 4 else p.upper() if len(p) <= 3 else p for p in parts[1:]]
    return separator.join([parts[0].lower(), *rest])


def source_form(forms: dict[str, str], category: str) -> str:
    """The source form a target category is translated from: the same category's, else
    `other`'s, else the last one given."""
    if category in forms:
        return forms[category]
    return forms.get("other") or list(forms.values())[-1]


def plural_context(language: str | None, category: str, note: str | None = None) -> str:
    """What the model is told about one form: its category and a sample number."""
    told = (
        f"Plural form `{category}` of the target language, used for counts such as "
        f"{category}: {sample(language, category)}. Translate this form for that count."
    )
    return f"{note}\n{told}" if note else told


def _rule(language: str | None) -> PluralRule:
    if not language:
        return _english()
    try:
        return Locale.parse(language.replace("-", "_")).plural_form
    except (UnknownLocaleError, ValueError, TypeError):
        try:
            return Locale.parse(language.replace("-", "_").split("_")[0]).plural_form
        except (UnknownLocaleError, ValueError, TypeError):
            return _english()


@functools.cache
def _english() -> PluralRule:
    return Locale.parse("en").plural_form
