"""SRT through the `srt` package: cue numbers and timings are written back exactly as
parsed (no renumbering), line endings as the file had them."""

from __future__ import annotations

import re

import srt

from translate_server.documents.formats.base import (
    DocumentFormat,
    Extracted,
    FormatOptions,
    decode_text,
)
from translate_server.documents.formats.subtitles import Cue, SubtitleExtracted

_FIRST_CUE = re.compile(rb"^\s*\d+\s*\r?\n\s*\d+:\d{2}:\d{2}[,.]\d{1,3}\s*-->")


def extract(data: bytes, options: FormatOptions) -> Extracted:
    text, encoding = decode_text(data)
    subtitles = list(srt.parse(text))
    eol = "\r\n" if "\r\n" in text else "\n"
    cues = [
        Cue(s.content.split("\n"), s.start.total_seconds(), s.end.total_seconds())
        for s in subtitles
    ]

    def write(lines: list[list[str]]) -> bytes:
        for subtitle, cue_lines in zip(subtitles, lines, strict=True):
            subtitle.content = "\n".join(cue_lines)
        return encoding.encode(srt.compose(subtitles, reindex=False, strict=False, eol=eol))

    return SubtitleExtracted(cues, write)


def sniff(data: bytes) -> bool:
    return bool(_FIRST_CUE.match(data.removeprefix(b"\xef\xbb\xbf")[:512]))


FORMAT = DocumentFormat("srt", (".srt",), "application/x-subrip; charset=utf-8", extract, sniff)
