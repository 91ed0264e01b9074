"""Xcode string catalogs (`.xcstrings`), written by hand over `jsontext`: no library reads
them (translate-toolkit has no store for them), and Xcode's own layout (`" : "`, two
spaces, keys in order) must survive a round trip for the catalog to diff cleanly.

Each string without a translation in the target language (or with one in a state other than
`translated`, or all where `retranslate`) is translated from the source language's
localization, or from its key where it has none; `shouldTranslate: false` strings are left
alone, and `comment` is told to the model. Plural variations become the target language's
CLDR categories. The target's localization is written in Xcode's layout, with `state`
`needs_review` where the translation's estimate says so and `translated` elsewhere. The
catalog's translated strings serve as the memory of the rest.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from translate_server.documents.formats.base import (
    DocumentFormat,
    Extracted,
    FormatOptions,
    decode_text,
)
from translate_server.documents.formats.l10n import plurals
from translate_server.documents.formats.l10n.jsontext import Member, Node, Object, parse
from translate_server.documents.formats.l10n.slots import Slot, SlotsExtracted, single
from translate_server.errors import InvalidDocumentError

# (translations, needs review) -> the target language's localization, as a JSON value
Build = Callable[[Sequence[str], bool], dict[str, object]]


def _unit(node: Node | None) -> str | None:
    """A `{"stringUnit": {"value": ...}}`'s value."""
    unit = node.get("stringUnit") if isinstance(node, Object) else None
    value = unit.get("value") if isinstance(unit, Object) else None
    return value.data if value is not None and isinstance(value.data, str) else None


def _state(node: Node | None) -> str | None:
    unit = node.get("stringUnit") if isinstance(node, Object) else None
    state = unit.get("state") if isinstance(unit, Object) else None
    return state.data if state is not None and isinstance(state.data, str) else None


def _forms(node: Node | None) -> dict[str, str] | None:
    """A localization's plural forms, where it varies by plural alone."""
    variations = node.get("variations") if isinstance(node, Object) else None
    plural = variations.get("plural") if isinstance(variations, Object) else None
    if not isinstance(plural, Object) or not isinstance(variations, Object):
        return None
    if len(variations.members) != 1:  # varies by device too: left to a person
        return None
    forms = {m.key: _unit(m.value) for m in plural.members}
    if "other" not in forms or any(v is None for v in forms.values()):
        return None
    return {k: v for k, v in forms.items() if v is not None}


def _indent(text: str, at: int) -> str:
    line = text.rfind("\n", 0, at) + 1
    return text[line:at][: len(text[line:at]) - len(text[line:at].lstrip(" \t"))]


def _layout(value: object, indent: str) -> str:
    """`value` as Xcode writes JSON, its lines after the first indented by `indent`."""
    dumped = json.dumps(value, ensure_ascii=False, indent=2, separators=(",", " : "))
    return dumped.replace("\n", "\n" + indent)


def _unit_value(text: str, needs_review: bool) -> dict[str, object]:
    state = "needs_review" if needs_review else "translated"
    return {"stringUnit": {"state": state, "value": text}}


class _Catalog:
    def __init__(self, text: str, options: FormatOptions) -> None:
        self.text = text
        self.target = plurals.locale_tag(options.target_lang or "")
        self.retranslate = options.retranslate
        self.slots: list[Slot] = []
        self.known: list[tuple[str, str]] = []

    def string(self, source_lang: str, member: Member) -> None:
        entry = member.value
        if not isinstance(entry, Object):
            return
        should = entry.get("shouldTranslate")
        if should is not None and should.data is False:
            return
        localizations = entry.get("localizations")
        source_node = localizations.get(source_lang) if isinstance(localizations, Object) else None
        target_node = localizations.get(self.target) if isinstance(localizations, Object) else None
        comment = entry.get("comment")
        note = f"Comment: {comment.data}" if comment is not None and comment.data else None
        forms = _forms(source_node)
        source: str | None = _unit(source_node) if source_node is not None else member.key
        if forms is None and (source is None or not source.strip()):
            return
        if _state(target_node) == "translated" and not self.retranslate:
            found = _unit(target_node)
            if source and found:
                self.known.append((source, found))
            return
        if forms is not None:
            categories = plurals.categories(self.target)
            sources = [plurals.source_form(forms, c) for c in categories]
            contexts: list[str | None] = [
                plurals.plural_context(self.target, c, note) for c in categories
            ]
        else:
            assert source is not None
            categories, sources, contexts = (), [source], [note]
        sources = list(sources)

        def made(found: Sequence[str], needs_review: bool) -> dict[str, object]:
            kept = [single(s).assemble([t]) for s, t in zip(sources, found, strict=True)]
            if not categories:
                return _unit_value(kept[0], needs_review)
            plural = {
                c: _unit_value(t, needs_review) for c, t in zip(categories, kept, strict=True)
            }
            return {"variations": {"plural": plural}}

        self.slots.append(self._place(entry, localizations, target_node, sources, contexts, made))

    def _place(
        self,
        entry: Object,
        localizations: Node | None,
        target_node: Node | None,
        sources: list[str],
        contexts: list[str | None],
        made: Build,
    ) -> Slot:
        """Where the target's localization goes: over its old one, among the others in key
        order, or in a `localizations` object of its own."""
        build = made
        if target_node is not None:
            indent = _indent(self.text, target_node.start)
            return Slot(
                target_node.start,
                target_node.end,
                sources,
                list(contexts),
                lambda f, r: _layout(build(f, r), indent),
            )
        if isinstance(localizations, Object):
            return self._insert(localizations, self.target, sources, contexts, build)
        return self._insert(entry, "localizations", sources, contexts, build, nested=self.target)

    def _insert(
        self,
        node: Object,
        key: str,
        sources: list[str],
        contexts: list[str | None],
        build: Build,
        nested: str | None = None,
    ) -> Slot:
        members = node.members
        after = [m for m in members if m.key < key]
        if members:
            indent = _indent(self.text, members[0].key_start)
        else:
            indent = _indent(self.text, node.start) + "  "

        def write(found: Sequence[str], review: bool) -> str:
            value: dict[str, object] = build(found, review)
            if nested is not None:
                value = {nested: value}
            return f'"{key}" : ' + _layout(value, indent)

        if after:
            anchor = after[-1].value.end
            return Slot(
                anchor, anchor, sources, list(contexts), lambda f, r: f",\n{indent}" + write(f, r)
            )
        if members:
            anchor = members[0].key_start
            return Slot(
                anchor, anchor, sources, list(contexts), lambda f, r: write(f, r) + f",\n{indent}"
            )
        close = _indent(self.text, node.start)
        return Slot(
            node.start,
            node.end,
            sources,
            list(contexts),
            lambda f, r: "{\n" + indent + write(f, r) + "\n" + close + "}",
        )


def extract(data: bytes, options: FormatOptions) -> Extracted:
    text, encoding = decode_text(data)
    try:
        root = parse(text)
    except ValueError as exc:
        raise InvalidDocumentError(f"The string catalog cannot be read: {exc}") from exc
    strings = root.get("strings") if isinstance(root, Object) else None
    source = root.get("sourceLanguage") if isinstance(root, Object) else None
    if not isinstance(strings, Object) or source is None or not isinstance(source.data, str):
        raise InvalidDocumentError("A string catalog has `sourceLanguage` and `strings`.")
    catalog = _Catalog(text, options)
    for member in strings.members:
        catalog.string(source.data, member)
    return SlotsExtracted(text, catalog.slots, encoding.encode, catalog.known)


FORMAT = DocumentFormat("xcstrings", (".xcstrings",), "application/json", extract)
