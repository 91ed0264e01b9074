"""JSON locale files (flat or nested, i18next's included) and Flutter's ARB, written by hand
over `jsontext`: translate-toolkit's JSON and ARB stores write the file anew through `json`
(indentation, key order of `@` metadata and escapes change), so only the values' spans are
replaced here and every other byte stays.

- Every string value is translated; numbers, booleans, nulls and keys are not.
- i18next plurals (`key_one`, `key_other`, ... side by side in one object) become the target
  language's CLDR categories, each form told its category and a sample number.
- ICU MessageFormat inside a value (`{count, plural, ...}`, `select`) is translated inside
  with its structure kept (`icu`); ARB's messages always are ICU.
- ARB: `@key` metadata is kept as it is, its `description` told to the model as context;
  `@@locale` becomes the target language; `@@`-keys are never translated.
- i18next's `{{name}}`, `$t(key)` nesting and ICU arguments are placeholders put back.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from translate_server.documents.formats.base import (
    DocumentFormat,
    Extracted,
    FormatOptions,
    decode_text,
)
from translate_server.documents.formats.l10n import icu, plurals
from translate_server.documents.formats.l10n.jsontext import (
    Array,
    Member,
    Node,
    Object,
    Value,
    dump,
    parse,
)
from translate_server.documents.formats.l10n.slots import Parts, Slot, SlotsExtracted, single, slot
from translate_server.errors import InvalidDocumentError

_PLURAL_KEY = re.compile(r"^(.+)_(zero|one|two|few|many|other)$")


def value_parts(value: str, language: str | None, note: str | None, always_icu: bool) -> Parts:
    """A value's segments: ICU messages piece by piece, anything else whole."""
    if (always_icu or icu.has_choice(value)) and icu.has_choice(value):
        try:
            return icu.parts(value, language, note)
        except icu.IcuSyntaxError:
            pass
    return single(value, note)


class _Reader:
    def __init__(self, text: str, options: FormatOptions, arb: bool) -> None:
        self.text = text
        self.language = options.target_lang
        self.arb = arb
        self.slots: list[Slot] = []

    def walk(self, node: Node, notes: dict[str, str]) -> None:
        if isinstance(node, Object):
            self._object(node)
        elif isinstance(node, Array):
            for item in node.items:
                self.walk(item, {})
        elif isinstance(node.data, str) and node.data.strip():
            self._string(node, None)

    def _object(self, node: Object) -> None:
        notes = _arb_notes(node) if self.arb else {}
        grouped = dict(_plural_groups(node.members)) if not self.arb else {}
        skip: set[int] = set()
        for first, members in grouped.items():
            self.slots.append(self._plural(members))
            skip.update(id(m) for m in members)
            del first
        for member in node.members:
            if id(member) in skip:
                continue
            if self.arb and member.key.startswith("@"):
                if member.key == "@@locale" and isinstance(member.value.data, str):
                    self._locale(member.value)
                continue
            if isinstance(member.value, Object | Array):
                self.walk(member.value, {})
            elif isinstance(member.value.data, str) and member.value.data.strip():
                self._string(member.value, notes.get(member.key))

    def _string(self, node: Value, note: str | None) -> None:
        assert isinstance(node.data, str)
        raw = self.text[node.start : node.end]
        parts = value_parts(node.data, self.language, note, self.arb)
        self.slots.append(slot(node.start, node.end, parts, lambda found: dump(found, raw)))

    def _locale(self, node: Value) -> None:
        language = plurals.locale_tag(self.language, "_") if self.language else ""
        if language:
            self.slots.append(Slot(node.start, node.end, [], [], lambda *_: dump(language, "")))

    def _plural(self, members: list[Member]) -> Slot:
        """A group `key_one`, `key_other`... rewritten as the target's categories, members
        spaced as the first two were."""
        base = _PLURAL_KEY.match(members[0].key)
        assert base is not None
        forms = {_category(m.key): str(m.value.data) for m in members}
        first, last = members[0], members[-1]
        colon = self.text[first.key_end : first.value.start]
        between = self.text[first.value.end : members[1].key_start]
        raw = self.text[first.value.start : first.value.end]
        categories = plurals.categories(self.language)
        sources = [plurals.source_form(forms, c) for c in categories]
        contexts: list[str | None] = [plurals.plural_context(self.language, c) for c in categories]

        # Each form present keeps its own key and spacing; a new one is laid out as the first.
        heads = {_category(m.key): self.text[m.key_start : m.value.start] for m in members}
        for category in categories:
            heads.setdefault(category, dump(f"{base.group(1)}_{category}", "") + colon)

        def write(found: Sequence[str], _: bool) -> str:
            return between.join(
                heads[category] + dump(single(source).assemble([translation]), raw)
                for category, source, translation in zip(categories, sources, found, strict=True)
            )

        return Slot(first.key_start, last.value.end, sources, contexts, write)


def _category(key: str) -> str:
    match = _PLURAL_KEY.match(key)
    return match.group(2) if match else "other"


def _plural_groups(members: list[Member]) -> Iterator[tuple[str, list[Member]]]:
    """Runs of side-by-side string members `base_<category>` holding `base_other`."""
    at = 0
    while at < len(members):
        match = _PLURAL_KEY.match(members[at].key)
        end = at + 1
        if match:
            base = match.group(1)
            while end < len(members):
                following = _PLURAL_KEY.match(members[end].key)
                if following is None or following.group(1) != base:
                    break
                end += 1
        run = members[at:end]
        if (
            match
            and len(run) >= 2
            and any(m.key.endswith("_other") for m in run)
            and all(isinstance(m.value.data, str) and type(m.value) is Value for m in run)
        ):
            yield run[0].key, run
        at = end


def _arb_notes(node: Object) -> dict[str, str]:
    """Each ARB message's description, from its `@key` metadata."""
    notes = {}
    for member in node.members:
        if member.key.startswith("@") and not member.key.startswith("@@"):
            meta = member.value
            if isinstance(meta, Object):
                description = meta.get("description")
                if description is not None and isinstance(description.data, str):
                    notes[member.key[1:]] = f"Description: {description.data}"
    return notes


def _extract(data: bytes, options: FormatOptions, arb: bool) -> Extracted:
    text, encoding = decode_text(data)
    try:
        root = parse(text)
    except ValueError as exc:
        raise InvalidDocumentError(f"The JSON file cannot be read: {exc}") from exc
    if not isinstance(root, Object):
        raise InvalidDocumentError("A JSON locale file is an object of keys and values.")
    reader = _Reader(text, options, arb)
    reader.walk(root, {})
    return SlotsExtracted(text, reader.slots, encoding.encode)


def extract_json(data: bytes, options: FormatOptions) -> Extracted:
    return _extract(data, options, arb=False)


def extract_arb(data: bytes, options: FormatOptions) -> Extracted:
    return _extract(data, options, arb=True)


JSON_FORMAT = DocumentFormat("json", (".json",), "application/json", extract_json)
ARB_FORMAT = DocumentFormat("arb", (".arb",), "application/json", extract_arb)
