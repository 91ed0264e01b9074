"""YAML locale files (Rails, Symfony), written by hand over PyYAML's node marks: a YAML
dumper writes the whole document anew (comments, anchors, quoting and order are lost), so
only each translated scalar's span is replaced.

- Every string scalar that is a mapping's value or a sequence's item is translated; keys,
  numbers, booleans, Ruby symbols (`:year`), anchors and aliases are not.
- A file whose top level is one key naming a language (`en:`) has that key renamed to the
  target language.
- A mapping of plural categories (Rails' `one:`/`other:`) becomes the target language's CLDR
  categories, each told its category and a sample number.
- A scalar is written in its own style where the translation allows it (plain, single- or
  double-quoted), else double-quoted; a block scalar (`|`, `>`) is written double-quoted.
  `%{name}`, `%name%` and `{name}` are placeholders put back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

import yaml

from translate_server.documents.formats.base import (
    DocumentFormat,
    Extracted,
    FormatOptions,
    decode_text,
)
from translate_server.documents.formats.l10n import plurals
from translate_server.documents.formats.l10n.json_files import value_parts
from translate_server.documents.formats.l10n.slots import Slot, SlotsExtracted, single, slot
from translate_server.errors import InvalidDocumentError

_STRING_TAG = "tag:yaml.org,2002:str"
_LANGUAGE = re.compile(r"^[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$")
# A translation written plain only where it is plainly text (words, spaces and punctuation
# that means nothing to YAML), and reads back as itself (not `yes`, `1.5` or `null`).
_PLAIN = re.compile(r"[^\W_][\w .!?'()/%-]*[\w.!?)%]|[^\W_]")
_PLAIN_FORBIDDEN = re.compile(r"\s\s|\s#")
# In a flow collection (`[a, b]`), punctuation YAML reads there as its own stays quoted.
_FLOW_FORBIDDEN = re.compile(r"[?!%,]")
# What YAML may not hold as it is (its reader refuses them, or reads them as line breaks).
_UNPRINTABLE = re.compile(
    "[^\t\n\r\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)


def encode(value: str, style: str | None, flow: bool = False) -> str:
    """A translation as a YAML scalar, in `style` where it can be ('' plain, "'", '"'), in a
    flow collection where `flow`."""
    plain = style == "" and _PLAIN.fullmatch(value) and not _PLAIN_FORBIDDEN.search(value)
    if plain and not (flow and _FLOW_FORBIDDEN.search(value)) and _reads_back(value):
        return value
    printable = not _UNPRINTABLE.search(value)
    if style == "'" and printable and "\n" not in value and value.strip() == value:
        return "'" + value.replace("'", "''") + "'"
    return _UNPRINTABLE.sub(
        lambda m: f"\\u{ord(m.group()):04x}" if ord(m.group()) < 0x10000 else m.group(),
        json.dumps(value, ensure_ascii=False),
    )


def _reads_back(value: str) -> bool:
    """Whether `value` written plain reads back as itself."""
    try:
        return bool(yaml.safe_load(value) == value)
    except yaml.YAMLError:
        return False


class _Reader:
    def __init__(self, text: str, language: str | None) -> None:
        self.text = text
        self.language = language
        self.slots: list[Slot] = []
        self.seen: set[int] = set()

    def walk(self, node: yaml.Node) -> None:
        flow = bool(getattr(node, "flow_style", False))
        if isinstance(node, yaml.MappingNode):
            if self.plural(node):
                return
            for _, value in node.value:
                self.value(value, flow)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                self.value(item, flow)

    def value(self, node: yaml.Node, flow: bool) -> None:
        if isinstance(node, yaml.ScalarNode):
            start = node.start_mark.index
            # An anchored or tagged scalar's marks hold its `&name`/`!tag`: left alone, as
            # is a scalar met again through an alias.
            if (
                node.tag == _STRING_TAG
                and node.value.strip()
                and not (node.style is None and node.value.startswith(":"))  # a Ruby symbol
                and self.text[start : start + 1] not in ("&", "!")
                and id(node) not in self.seen
            ):
                self.seen.add(id(node))
                style = node.style or ""
                end = node.end_mark.index
                if style in ("|", ">"):  # its marks run on over the line breaks after it
                    end = start + len(self.text[start:end].rstrip())
                self.slots.append(
                    slot(
                        start,
                        end,
                        value_parts(node.value, self.language, None, False),
                        lambda found, style=style, flow=flow: encode(found, style, flow),  # type: ignore[misc]
                    )
                )
        else:
            self.walk(node)

    def plural(self, node: yaml.MappingNode) -> bool:
        pairs = node.value
        keys = [k.value for k, _ in pairs if isinstance(k, yaml.ScalarNode)]
        if (
            len(keys) != len(pairs)
            or len(pairs) < 2
            or "other" not in keys
            or not set(keys) <= set(plurals.CATEGORIES)
            or not all(isinstance(v, yaml.ScalarNode) and v.tag == _STRING_TAG for _, v in pairs)
        ):
            return False
        forms = {k.value: v.value for k, v in pairs}
        (first_key, first), (_, last) = pairs[0], pairs[-1]
        colon = self.text[first_key.end_mark.index : first.start_mark.index]
        between = self.text[first.end_mark.index : pairs[1][0].start_mark.index]
        style = first.style or ""
        categories = plurals.categories(self.language)
        sources = [plurals.source_form(forms, c) for c in categories]
        contexts: list[str | None] = [plurals.plural_context(self.language, c) for c in categories]

        # Each form present keeps its own key, spacing and quoting; a new one is laid out as
        # the first.
        heads = {k.value: self.text[k.start_mark.index : v.start_mark.index] for k, v in pairs}
        styles = {k.value: v.style or "" for k, v in pairs}
        for category in categories:
            heads.setdefault(category, f"{category}{colon}")

        def write(found: Sequence[str], _: bool) -> str:
            return between.join(
                heads[c] + encode(single(s).assemble([t]), styles.get(c, style))
                for c, s, t in zip(categories, sources, found, strict=True)
            )

        start = first_key.start_mark.index
        self.slots.append(Slot(start, last.end_mark.index, sources, contexts, write))
        return True

    def locale_key(self, root: yaml.Node) -> None:
        """The top level's one key, where it names a language, renamed to the target's."""
        if not isinstance(root, yaml.MappingNode) or len(root.value) != 1 or not self.language:
            return
        key = root.value[0][0]
        if isinstance(key, yaml.ScalarNode) and _LANGUAGE.match(str(key.value)):
            target = plurals.locale_tag(self.language)
            self.slots.append(
                Slot(key.start_mark.index, key.end_mark.index, [], [], lambda *_: target)
            )


def extract(data: bytes, options: FormatOptions) -> Extracted:
    text, encoding = decode_text(data)
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        raise InvalidDocumentError(f"The YAML file cannot be read: {exc}") from exc
    reader = _Reader(text, options.target_lang)
    if root is not None:
        reader.locale_key(root)
        reader.walk(root)
    return SlotsExtracted(text, reader.slots, encoding.encode)


FORMAT = DocumentFormat("yaml", (".yml", ".yaml"), "application/yaml", extract)
