"""ICU MessageFormat inside a value: its text translated, its structure kept.

A message is text and arguments. Simple arguments (`{name}`, `{n, number}`) stay inside the
text around them, as placeholders. A `plural` argument gets the target language's CLDR
categories (explicit `=0` branches kept, each category translated from the source's branch
of the same category, else `other`'s, told its category and a sample number); `select` and
`selectordinal` keep their branches and have each translated. Every run of text is a segment,
told the whole source message as context. Braces a translation adds are quoted (`'{'`) so
that the message still parses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from translate_server.documents.formats.l10n import plurals
from translate_server.documents.formats.l10n.slots import Parts, keep_placeholders

_CHOICE = re.compile(r"\{\s*(\w+)\s*,\s*(plural|select|selectordinal)\s*,", re.ASCII)
_SIMPLE = re.compile(r"\{\s*\w+\s*(?:,[^{}]*)?\}")
_SELECTOR = re.compile(r"\s*(=\d+|[\w-]+)\s*(?=\{)")
_OFFSET = re.compile(r"\s*offset\s*:\s*\d+")


class IcuSyntaxError(ValueError):
    pass


@dataclass
class Branch:
    lead: str  # whitespace and selector before its `{`
    selector: str
    message: list[Node]


@dataclass
class Choice:
    head: str  # `{count, plural,` and an offset
    kind: str
    branches: list[Branch]
    tail: str  # whitespace before the closing `}`


Node = str | Choice


def has_choice(value: str) -> bool:
    return _CHOICE.search(value) is not None


def parse(value: str) -> list[Node]:
    nodes, end = _message(value, 0, top=True)
    if end != len(value):
        raise IcuSyntaxError(f"unexpected `}}` at {end}")
    return nodes


def _message(value: str, at: int, *, top: bool) -> tuple[list[Node], int]:
    nodes: list[Node] = []
    text_start = at
    while at < len(value):
        char = value[at]
        if char == "'" and at + 1 < len(value) and value[at + 1] in "{}'#|":
            close = value.find("'", at + 2) if value[at + 1] != "'" else at + 1
            at = (close if close >= 0 else len(value) - 1) + 1
        elif char == "}":
            if top:
                raise IcuSyntaxError(f"unexpected `}}` at {at}")
            break
        elif char == "{":
            choice = _CHOICE.match(value, at)
            if choice is None:
                simple = _SIMPLE.match(value, at)
                if simple is None:
                    raise IcuSyntaxError(f"unclosed argument at {at}")
                at = simple.end()
                continue
            if at > text_start:
                nodes.append(value[text_start:at])
            parsed, at = _choice(value, choice)
            nodes.append(parsed)
            text_start = at
        else:
            at += 1
    if at > text_start:
        nodes.append(value[text_start:at])
    return nodes, at


def _choice(value: str, match: re.Match[str]) -> tuple[Choice, int]:
    at = match.end()
    offset = _OFFSET.match(value, at)
    if offset and match.group(2) == "plural":
        at = offset.end()
    head = value[match.start() : at]
    branches: list[Branch] = []
    while True:
        selector = _SELECTOR.match(value, at)
        if selector is None:
            break
        message, end = _message(value, selector.end() + 1, top=False)
        if end >= len(value):
            raise IcuSyntaxError("unclosed branch")
        branches.append(Branch(selector.group(), selector.group(1), message))
        at = end + 1
    close = re.compile(r"\s*\}").match(value, at)
    if close is None or not branches:
        raise IcuSyntaxError(f"malformed {match.group(2)} at {match.start()}")
    return Choice(head, match.group(2), branches, value[at : close.end() - 1]), close.end()


def parts(value: str, language: str | None, note: str | None = None) -> Parts:
    """The segments of an ICU message, plurals made the target language's."""
    nodes = expand(parse(value), language)
    context = f"{note}\n" if note else ""
    context += f"A piece of the ICU message: {value[:1500]}"
    sources: list[str] = []
    contexts: list[str | None] = []
    _collect(nodes, context, language, None, sources, contexts)

    def assemble(found: Sequence[str]) -> str:
        remaining = iter(zip(sources, found, strict=True))
        return _write(nodes, remaining)

    return Parts(sources, contexts, assemble)


def expand(nodes: list[Node], language: str | None) -> list[Node]:
    """The message with every plural's branches made the target language's categories."""
    out: list[Node] = []
    for node in nodes:
        if isinstance(node, str):
            out.append(node)
            continue
        branches = [Branch(b.lead, b.selector, expand(b.message, language)) for b in node.branches]
        if node.kind == "plural":
            branches = _target_branches(branches, language)
        out.append(Choice(node.head, node.kind, branches, node.tail))
    return out


def _target_branches(branches: list[Branch], language: str | None) -> list[Branch]:
    explicit = [b for b in branches if b.selector.startswith("=")]
    by_category = {b.selector: b for b in branches if not b.selector.startswith("=")}
    if not by_category:
        return branches
    fallback = by_category.get("other") or list(by_category.values())[-1]
    spacing = re.match(r"\s*", branches[-1].lead)
    space = spacing.group() if spacing else " "
    made = []
    for category in plurals.categories(language):
        found = by_category.get(category)
        if found is not None:
            made.append(found)
        else:
            made.append(Branch(f"{space}{category} ", category, fallback.message))
    return explicit + made


def _collect(
    nodes: list[Node],
    context: str,
    language: str | None,
    category: str | None,
    sources: list[str],
    contexts: list[str | None],
) -> None:
    for node in nodes:
        if isinstance(node, str):
            sources.append(node.strip())
            told = context
            if category:
                told = plurals.plural_context(language, category, context)
            contexts.append(told)
            continue
        for branch in node.branches:
            chosen = category
            if node.kind == "plural" and not branch.selector.startswith("="):
                chosen = branch.selector
            _collect(branch.message, context, language, chosen, sources, contexts)


def _write(nodes: list[Node], remaining: object) -> str:
    out = []
    for node in nodes:
        if isinstance(node, str):
            source, found = next(remaining)  # type: ignore[call-overload]
            if not source:
                out.append(node)
                continue
            lead = node[: len(node) - len(node.lstrip())]
            out.append(lead + quote(source, found) + node[len(node.rstrip()) :])
            continue
        out.append(node.head)
        out.extend(
            f"{branch.lead}{{{_write(branch.message, remaining)}}}" for branch in node.branches
        )
        out.append(node.tail + "}")
    return "".join(out)


def quote(source: str, translation: str) -> str:
    """The translation as message text: the source's arguments back, other braces quoted."""
    translation = keep_placeholders(source, translation)
    allowed = set(_SIMPLE.findall(source))
    out = []
    at = 0
    for match in _SIMPLE.finditer(translation):
        out.append(_escape(translation[at : match.start()]))
        out.append(match.group() if match.group() in allowed else _escape(match.group()))
        at = match.end()
    out.append(_escape(translation[at:]))
    return "".join(out)


def _escape(text: str) -> str:
    # An apostrophe before a special character, or last (the message's next character may
    # be a brace), would start a quotation: doubled, it is an apostrophe.
    text = re.sub(r"'(?=[{}#|']|$)", "''", text)
    return text.replace("{", "'{'").replace("}", "'}'")
