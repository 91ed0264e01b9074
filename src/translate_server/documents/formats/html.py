"""HTML through the same path as `/translate`'s HTML mode: every text node is a segment, and
every byte of markup is copied through as it was."""

from __future__ import annotations

import re

from translate_server.documents.formats.base import (
    DocumentFormat,
    Extracted,
    FormatOptions,
    TextExtracted,
    decode_text,
)
from translate_server.translation.segmentation.markup import parse_html

# Text nodes are segments whatever their length: the translation service splits long texts.
_WHOLE_NODES = 1 << 30
_HTML_START = re.compile(
    rb"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html)[\s>]", re.IGNORECASE | re.DOTALL
)


def extract(data: bytes, options: FormatOptions) -> Extracted:
    text, encoding = decode_text(data)
    return TextExtracted(parse_html(text, _WHOLE_NODES), encoding)


def sniff(data: bytes) -> bool:
    return bool(_HTML_START.match(data.removeprefix(b"\xef\xbb\xbf")[:4096]))


FORMAT = DocumentFormat("html", (".html", ".htm"), "text/html; charset=utf-8", extract, sniff)
