"""XML read with the place of every element in its text, so that a value can be written back
into its span and nothing else moves: lxml and translate-toolkit's stores serialize the whole
tree again (quotes, entities, empty elements and the declaration change)."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

_TOKEN = re.compile(
    r"<!--.*?-->|<!\[CDATA\[.*?\]\]>|<\?.*?\?>|<!DOCTYPE(?:[^\[>]|\[[^\]]*\])*>"
    r"|<(/?)([\w:.-]+)((?:[^>\"']|\"[^\"]*\"|'[^']*')*?)(/?)>",
    re.DOTALL,
)
_ATTRIBUTE = re.compile(r"([\w:.-]+)\s*=\s*(\"[^\"]*\"|'[^']*')")


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    start: int  # of its start tag
    end: int  # after its end tag
    inner_start: int
    inner_end: int
    children: list[Element] = field(default_factory=list)

    def find(self, tag: str) -> Element | None:
        return next((child for child in self.children if child.tag == tag), None)

    def findall(self, tag: str) -> list[Element]:
        return [child for child in self.children if child.tag == tag]

    def attr_span(self, text: str, name: str) -> tuple[int, int] | None:
        """Where attribute `name`'s value (inside its quotes) is in the start tag."""
        for match in _ATTRIBUTE.finditer(text, self.start, self.inner_start):
            if match.group(1) == name:
                return match.start(2) + 1, match.end(2) - 1
        return None


def parse(text: str) -> Element:
    """The root element; an XML file whose tags do not nest is a ValueError."""
    root = Element("", {}, 0, len(text), 0, len(text))
    stack = [root]
    for match in _TOKEN.finditer(text):
        closing, tag, attrs, empty = match.group(1, 2, 3, 4)
        if tag is None:
            continue
        if closing:
            if len(stack) < 2 or stack[-1].tag != tag:
                raise ValueError(f"`</{tag}>` closes nothing open at {match.start()}")
            element = stack.pop()
            element.inner_end, element.end = match.start(), match.end()
            continue
        element = Element(
            tag,
            {name: html.unescape(value[1:-1]) for name, value in _ATTRIBUTE.findall(attrs)},
            match.start(),
            match.end(),
            match.end(),
            match.end(),
        )
        stack[-1].children.append(element)
        if not empty:
            stack.append(element)
    if len(stack) != 1:
        raise ValueError(f"`<{stack[-1].tag}>` is never closed")
    elements = root.children
    if len(elements) != 1:
        raise ValueError("an XML file has one root element")
    return elements[0]


def text_of(text: str, element: Element) -> str:
    """An element's text content with entities and CDATA resolved (its child tags dropped)."""
    inner = text[element.inner_start : element.inner_end]
    out = []
    at = 0
    for match in _TOKEN.finditer(inner):
        out.append(html.unescape(inner[at : match.start()]))
        token = match.group()
        if token.startswith("<![CDATA["):
            out.append(token[9:-3])
        at = match.end()
    out.append(html.unescape(inner[at:]))
    return "".join(out)


def escape(value: str) -> str:
    """Text as XML holds it; a carriage return as a reference (a parser reads a raw one as a
    line feed)."""
    value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return value.replace("\r", "&#13;")


def strip_invalid(value: str) -> str:
    """The characters XML 1.0 cannot hold, dropped (a translation may contain them)."""
    return re.sub(r"[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]", "", value)


def has_markup(text: str, element: Element) -> bool:
    return bool(element.children)
