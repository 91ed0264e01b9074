"""Spans a translation must keep verbatim (inline code, link targets, format placeholders):
given to the translator as they are, for context, and restored afterwards where it changed
them."""

from __future__ import annotations

import re
from collections import Counter

# printf-style (`%s`, `%(name)s`, `%-5.2f`) and brace-style (`{name}`, `{0:>3}`) placeholders.
PLACEHOLDER = re.compile(
    r"%(?:\([^)\s]+\))?[-#0 +]*(?:\d+|\*)?(?:\.(?:\d+|\*))?[hlLqjzt]*[diouxXeEfFgGcrsaAp%]"
    r"|\{[^{}\s]*\}"
)


def restore(translation: str, pattern: re.Pattern[str], originals: list[str]) -> str:
    """The translation with its spans matching `pattern` put back as they were in the source.

    Spans the translator kept intact (in any order) are left where it put them; otherwise, if
    it kept their number, each is replaced in order by the source's; if it lost or added some,
    the translation is left as it is (nothing better can be known)."""
    found = [match.group() for match in pattern.finditer(translation)]
    if Counter(found) == Counter(originals) or len(found) != len(originals):
        return translation
    spans = iter(originals)
    return pattern.sub(lambda _: next(spans), translation)
