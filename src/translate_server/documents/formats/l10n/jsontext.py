"""JSON read with the place of every key and value in its text, so that a value can be
written back into its span and nothing else moves (`json` gives values, not places)."""

from __future__ import annotations

import json
import json.decoder
import re
from collections.abc import Callable
from dataclasses import dataclass, field

# (text, index after the opening quote, strict) -> (the string, index after its closing quote);
# the json module's own, untyped in its stubs.
scanstring: Callable[[str, int, bool], tuple[str, int]] = getattr(json.decoder, "scanstring")  # noqa: B009
_SPACE = re.compile(r"[ \t\n\r]*")
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null")


@dataclass
class Value:
    start: int
    end: int
    data: object = None  # a string's or scalar's value


@dataclass
class Member:
    key: str
    key_start: int
    key_end: int
    value: Node


@dataclass
class Object(Value):
    members: list[Member] = field(default_factory=list)

    def get(self, key: str) -> Node | None:
        return next((m.value for m in self.members if m.key == key), None)


@dataclass
class Array(Value):
    items: list[Node] = field(default_factory=list)


Node = Value | Object | Array


def parse(text: str) -> Node:
    node, at = _value(text, _skip(text, 0))
    if _skip(text, at) != len(text):
        raise ValueError(f"extra data at {at}")
    return node


def _skip(text: str, at: int) -> int:
    match = _SPACE.match(text, at)
    return match.end() if match else at


def _value(text: str, at: int) -> tuple[Node, int]:
    if at >= len(text):
        raise ValueError("unexpected end of JSON")
    char = text[at]
    if char == '"':
        value, end = scanstring(text, at + 1, True)
        return Value(at, end, value), end
    if char == "{":
        return _object(text, at)
    if char == "[":
        return _array(text, at)
    match = _SCALAR.match(text, at)
    if match is None:
        raise ValueError(f"unexpected {char!r} at {at}")
    return Value(at, match.end(), json.loads(match.group())), match.end()


def _object(text: str, start: int) -> tuple[Object, int]:
    node = Object(start, start)
    at = _skip(text, start + 1)
    if text.startswith("}", at):
        node.end = at + 1
        return node, node.end
    while True:
        if not text.startswith('"', at):
            raise ValueError(f"expected a key at {at}")
        key, key_end = scanstring(text, at + 1, True)
        after = _skip(text, key_end)
        if not text.startswith(":", after):
            raise ValueError(f"expected `:` at {after}")
        value, end = _value(text, _skip(text, after + 1))
        node.members.append(Member(key, at, key_end, value))
        at = _skip(text, end)
        if text.startswith(",", at):
            at = _skip(text, at + 1)
            continue
        if text.startswith("}", at):
            node.end = at + 1
            return node, node.end
        raise ValueError(f"expected `,` or `}}` at {at}")


def _array(text: str, start: int) -> tuple[Array, int]:
    node = Array(start, start)
    at = _skip(text, start + 1)
    if text.startswith("]", at):
        node.end = at + 1
        return node, node.end
    while True:
        value, end = _value(text, at)
        node.items.append(value)
        at = _skip(text, end)
        if text.startswith(",", at):
            at = _skip(text, at + 1)
            continue
        if text.startswith("]", at):
            node.end = at + 1
            return node, node.end
        raise ValueError(f"expected `,` or `]` at {at}")


def dump(value: str, like: str) -> str:
    """A JSON string for `value`, escaping non-ASCII only where the original (`like`, as
    written) did."""
    return json.dumps(value, ensure_ascii="\\u" in like)
