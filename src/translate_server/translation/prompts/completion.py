"""Few-shot completion prompts, for base models (no chat template, no instructions followed).

A base model continues text. Shown a few translated pairs in a fixed line format, it continues
the last, unfinished pair with the translation and then starts a new pair on the next line:

    English: The meeting starts at nine o'clock.
    German: Die Besprechung beginnt um neun Uhr.
    English: <the text>
    German:

So the translation is one line, and generation stops at the end of that line. The fence
around the text is the line itself: the text's own line breaks (any of them, Unicode's
included) are folded into spaces, so no text can begin a line that reads as a new pair.
The translation service never sends a text with line breaks here: for a completion family it
splits every text into lines first and translates each on its own (`split_lines`), keeping
the line breaks as they were.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from translate_server.text.languages import Language

# Where a completion ends: at the end of the translated line.
STOP = ("\n",)

# str.splitlines' line boundaries, and the whitespace around them.
_LINE_BREAKS = re.compile(r"\s*[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]\s*")


def one_line(text: str) -> str:
    """`text` with every line break (and the whitespace around it) folded into one space."""
    return _LINE_BREAKS.sub(" ", text.strip())


def completion_prompt(
    text: str,
    source: Language,
    target: Language,
    *,
    prefix: str = "",
    examples: Sequence[Mapping[str, str]] = (),
    glossary: Mapping[str, str] | None = None,
    first_line: str = "",
) -> str:
    """The few-shot prompt whose continuation is the translation of `text`.

    `examples` are sentences by language tag; those that hold both languages of the pair are
    shown (none for a pair they do not cover: the prompt is then the pair format alone).
    Glossary entries are shown as pairs of their own, right before the text. `first_line`
    (a request's context, on one line) opens the prompt as it is.
    """
    shown: list[tuple[str, str]] = []
    for example in examples:
        source_text, target_text = sentence(example, source), sentence(example, target)
        if source_text is not None and target_text is not None:
            shown.append((source_text, target_text))
    shown += (glossary or {}).items()
    lines = [one_line(first_line)] if first_line else []
    if prefix:
        lines.append(prefix.format(source=source.name, target=target.name))
    for source_text, target_text in shown:
        lines.append(f"{source.name}: {one_line(source_text)}")
        lines.append(f"{target.name}: {one_line(target_text)}")
    lines.append(f"{source.name}: {one_line(text)}")
    lines.append(f"{target.name}:")
    return "\n".join(lines)


def sentence(example: Mapping[str, str], language: Language) -> str | None:
    """The example's sentence in `language`: its exact tag ("pt-BR"), else its primary
    language ("pt")."""
    found = example.get(language.tag)
    if found is None:
        found = example.get(language.tag.split("-", 1)[0])
    return found
