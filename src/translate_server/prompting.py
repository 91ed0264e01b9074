"""Pure functions: a translation request becomes a prompt (chat messages for an
instruction-tuned model, a few-shot completion text for a base model) and a token budget, and
the model's answer becomes the translation alone.

The prompt's wording lives in `prompts/templates.toml` (one table per model family), not here.
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
from collections.abc import Mapping
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import msgspec
import regex

from translate_server.engine import ChatMessage
from translate_server.languages import Language
from translate_server.prompts import completion

_OPEN, _CLOSE = "<source>", "</source>"


class PromptTemplate(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    system: str
    glossary: str
    formality_formal: str
    formality_informal: str
    system_role: bool = True
    match: tuple[str, ...] = ()
    # "chat": instructions rendered by the model's chat template (instruction-tuned models);
    # "completion": a few-shot text the model continues (base models).
    kind: Literal["chat", "completion"] = "chat"
    # Completion prompts only: a first line ({source}, {target}), and example sentences by
    # language tag, shown as pairs for the languages they hold.
    prefix: str = ""
    examples: tuple[dict[str, str], ...] = ()

    @property
    def line_by_line(self) -> bool:
        """Whether each line of a text is its own prompt (a completion's answer is one line)."""
        return self.kind == "completion"


class TemplateError(ValueError):
    pass


class PromptTemplates:
    """The families of a templates file, the bundled one first and a user's file on top."""

    def __init__(self, families: Mapping[str, PromptTemplate]) -> None:
        self.families = dict(families)

    @classmethod
    def load(cls, path: str | None = None) -> PromptTemplates:
        tables = _bundled_tables()
        if path:
            try:
                user = tomllib.loads(Path(path).expanduser().read_text())
            except (OSError, tomllib.TOMLDecodeError) as exc:
                raise TemplateError(f"cannot read prompt templates {path}: {exc}") from exc
            for name, table in user.items():
                tables[name] = {**tables.get(name, {}), **table}
        default = tables.get("default", {})
        families = {}
        for name, table in tables.items():
            try:
                families[name] = msgspec.convert({**default, **table}, PromptTemplate)
            except msgspec.ValidationError as exc:
                raise TemplateError(f"prompt template `{name}`: {exc}") from exc
        return cls(families)

    def for_model(self, model: str) -> PromptTemplate:
        """The first family whose `match` globs fit `model`, else `default`."""
        lowered = model.lower()
        for name, template in self.families.items():
            if name != "default" and any(
                fnmatch.fnmatchcase(lowered, pattern.lower()) for pattern in template.match
            ):
                return template
        return self.families["default"]


@cache
def _bundled_text() -> str:
    return resources.files("translate_server.prompts").joinpath("templates.toml").read_text()


def _bundled_tables() -> dict[str, dict[str, Any]]:
    return tomllib.loads(_bundled_text())


@cache
def default_template() -> PromptTemplate:
    return PromptTemplates.load().families["default"]


def build_translation_prompt(
    text: str,
    source: Language,
    target: Language,
    *,
    glossary: Mapping[str, str] | None = None,
    formality: str | None = None,
    template: PromptTemplate | None = None,
) -> list[ChatMessage] | str:
    """The prompt for translating `text`: chat messages, or for a completion family the text
    a base model continues (which has no place for `formality`: a base model follows no
    instructions)."""
    template = template or default_template()
    if template.kind == "completion":
        return completion.completion_prompt(
            text, source, target, prefix=template.prefix, examples=template.examples,
            glossary=glossary)
    return build_translation_messages(text, source.name, target.name, glossary=glossary,
                                      formality=formality, template=template)


def build_translation_messages(
    text: str,
    source_name: str,
    target_name: str,
    *,
    glossary: Mapping[str, str] | None = None,
    formality: str | None = None,
    template: PromptTemplate | None = None,
) -> list[ChatMessage]:
    """The chat for translating `text`; the model's own chat template renders it.

    `glossary` holds the entries that occur in `text`; `formality` is "formal" or "informal".
    """
    template = template or default_template()
    instructions = template.system.format(
        open=_OPEN, close=_CLOSE, source=source_name, target=target_name
    )
    if formality == "formal":
        instructions += " " + template.formality_formal
    elif formality == "informal":
        instructions += " " + template.formality_informal
    if glossary:
        entries = "\n".join(f"- {term} => {required}" for term, required in glossary.items())
        instructions += "\n\n" + template.glossary.format(entries=entries)
    # The user's text cannot close the delimiter early and smuggle in instructions.
    fenced = text.replace(_OPEN, "<source >").replace(_CLOSE, "</source >")
    user = f"{_OPEN}\n{fenced}\n{_CLOSE}"
    if not template.system_role:
        return [{"role": "user", "content": f"{instructions}\n\n{user}"}]
    return [{"role": "system", "content": instructions}, {"role": "user", "content": user}]


def translation_stop(text: str, template: PromptTemplate | None = None) -> tuple[str, ...]:
    """Where a translation of `text` has certainly ended.

    Small models add commentary or loop after the translation; a paragraph break the source
    does not have is where that begins. (A single newline is not used: some models open their
    answer with one.) A completion prompt's answer ends with its line.
    """
    if template is not None and template.kind == "completion":
        return completion.STOP
    return (_CLOSE,) if "\n\n" in text.strip() else (_CLOSE, "\n\n")


# "Here is the translation:", "Sure! Here's the German translation of the text:",
# "Translation:", "German translation:", "Translated text:" ... at the very start. Words
# before a bare "translation" must be the request's language names or a few adjectives, so
# that a translation's own first words ("Die Besprechung", "The city") are told apart after
# a token or two. `regex` rather than `re` for its partial matches: a stream can tell when
# its start can no longer become a preamble.
_QUALIFIERS = ("final", "literal", "direct", "formal", "informal", "full", "complete",
               "requested", "corrected", "suggested", "possible", "accurate", "natural")


@lru_cache(maxsize=256)
def _preamble(languages: tuple[str, ...]) -> regex.Pattern[str]:
    names = {name.lower() for name in languages}
    names |= {name.split()[0] for name in names if name.split()}
    words = "|".join(regex.escape(word) for word in sorted(names | set(_QUALIFIERS),
                                                           key=len, reverse=True))
    return regex.compile(
        r"^(?:(?:sure|certainly|of course|okay|ok)[,.!]?\s+)?"
        r"(?:here(?:'s|’s| is| are)\s+(?:the|your|my|a)\s+(?:[\w()-]+\s+){0,3}?translations?"
        rf"|(?:the\s+)?(?:(?:{words})\s+){{0,2}}?translations?|translated(?:\s+text)?)"
        r"(?:\s+(?:of|in|into|to|from)\s+[^:\n]{0,48})?\s*:[ \t]*\n?",
        regex.IGNORECASE,
    )


# Lines holding nothing but a made-up tag ("<text>", "<translation>"), which small models
# open their answer with, echoing the `<source>` fence of the prompt: two at most. An answer
# that goes on with tag after tag is degenerate, and holding a stream back until such an
# answer ends would leave its client waiting for the whole generation.
_TAG_LINES = regex.compile(r"^(?:<[A-Za-z][\w-]*>[ \t]*\n\s*){1,2}")
_QUOTES = {'"': '"', "“": "”", "„": "“", "«": "»", "»": "«", "「": "」", "『": "』",
           "'": "'", "‘": "’", "‚": "‘"}
_CLOSING_QUOTES = frozenset(_QUOTES.values())
_TRAILING_NOTE = re.compile(
    r"\n\s*\(?\s*(?:note|notes|translator'?s note|explanation)\s*:.*\Z", re.IGNORECASE | re.DOTALL
)


def clean_translation(
    output: str, source: str, *, languages: tuple[str, ...] = (), final: bool = True
) -> str:
    """The translation alone, whatever the model's habits: no markers, surrounding whitespace,
    opening tag lines ("<text>"), preamble ("Here is the translation:"), wrapping quotes or
    trailing notes the source does not have; for a one-line source only the first line of the
    answer.

    `languages` are the names of the request's languages, which a preamble may mention;
    `final=False` cleans a partial answer (streaming): its end may still change.
    """
    source = source.strip()
    cleaned = output.replace(_OPEN, "").replace(_CLOSE, "").strip()
    # The checks before each pattern are what it needs to match (a tag line starts with "<",
    # every preamble ends in a colon): a stream cleans its answer again for every delta, and
    # most answers have neither.
    if cleaned.startswith("<") and not source.startswith("<"):
        cleaned = _TAG_LINES.sub("", cleaned, count=1)
    if ":" in cleaned:
        preamble = _preamble(languages)
        if ":" not in source or not preamble.match(source):
            cleaned = preamble.sub("", cleaned, count=1).lstrip()
    if "\n" not in source:
        cleaned = cleaned.split("\n", 1)[0].rstrip()
    elif final and not re.search(r"\bnote", source, re.IGNORECASE):
        cleaned = _TRAILING_NOTE.sub("", cleaned).rstrip()
    if final:
        cleaned = _without_cut_marker(cleaned, source)
    opening = cleaned[:1]
    if opening in _QUOTES and source[:1] not in _QUOTES:
        cleaned = cleaned[1:].lstrip()
        closing = _QUOTES[opening]
        if final and cleaned.endswith(closing) and source[-1:] not in _CLOSING_QUOTES:
            cleaned = cleaned[:-1].rstrip()
    return cleaned


def _without_cut_marker(text: str, source: str) -> str:
    """An answer cut off by `max_tokens` in the middle of a marker ("... <sour") ends before it."""
    for marker in (_OPEN, _CLOSE):
        for length in range(len(marker) - 1, 1, -1):
            fragment = marker[:length]
            if text.endswith(fragment):
                return text if source.endswith(fragment) else text[:-length].rstrip()
    return text


_ARRIVING_MARKER = re.compile(r"<[^>\s]*$")


class StreamCleaner:
    """`clean_translation` applied to an answer as it streams: each `feed` returns the text
    that is safe to send, `finish` the rest. What the end of the answer could still change
    (trailing whitespace, a closing quote, a half-received marker) is held back, and so is the
    start until a preamble can be told apart from the translation."""

    WINDOW = 120  # characters after which an answer's start is no longer a preamble

    def __init__(self, source: str, languages: tuple[str, ...] = ()) -> None:
        self.source = source
        self.languages = languages
        self._preamble = _preamble(languages)
        self._strips_tags = not source.lstrip().startswith("<")
        self._multiline = "\n" in source.strip()
        self.raw = ""
        self.sent = ""
        self._started = False  # once ruled out, a preamble cannot come back: longer text
        # never matches a pattern that its beginning already failed

    def feed(self, delta: str) -> str:
        self.raw += delta
        if not self._started:
            start = self.raw.replace(_OPEN, "").replace(_CLOSE, "").lstrip()
            if self._strips_tags:
                start = _TAG_LINES.sub("", start, count=1)
            if _may_be_preamble(start, self.WINDOW, self._preamble):
                return ""
            self._started = True
        stable = self.raw
        if "<" in stable:
            stable = _ARRIVING_MARKER.sub("", stable)  # a marker may be arriving
        candidate = clean_translation(stable, self.source, languages=self.languages,
                                      final=False).rstrip()
        if candidate[-1:] in _CLOSING_QUOTES:
            candidate = candidate[:-1]
        if self._multiline:
            # A trailing note could be starting on the last line.
            candidate = candidate.rsplit("\n", 1)[0].rstrip() if "\n" in candidate else ""
        return self._advance(candidate)

    def finish(self) -> str:
        return self._advance(clean_translation(self.raw, self.source, languages=self.languages))

    def _advance(self, text: str) -> str:
        if len(text) <= len(self.sent) or not text.startswith(self.sent):
            return ""
        new, self.sent = text[len(self.sent):], text
        return new


_TAG_LINE = regex.compile(r"<[A-Za-z][\w-]*>[ \t]*\n")


def _may_be_preamble(start: str, window: int, preamble: regex.Pattern[str]) -> bool:
    """Whether the start of an answer (opening tag lines removed) could still turn out to be
    a preamble or an opening tag line: the text is held back exactly that long."""
    if len(start) >= window:
        return False
    if (tag := _TAG_LINE.match(start, partial=True)) is not None and tag.partial:
        return True
    match = preamble.match(start, partial=True)
    return match is not None and match.partial


def translation_token_budget(source_tokens: int, remaining_context: int, ceiling: int) -> int:
    """Default `max_tokens` for a translation: generous for wordier target languages, but a
    model that loops stops long before the context limit."""
    return max(1, min(3 * source_tokens + 16, remaining_context, ceiling))
