"""WebVTT through webvtt-py: the header, notes, styles, regions, cue identifiers, timings and
cue settings are written back as parsed. Cue text is translated with its tags (`<v Bob>`,
`<i>`) in place: the segment is the cue's raw text. Line endings are kept (LF or CRLF)."""

from __future__ import annotations

import webvtt

from translate_server.documents.formats.base import (
    DocumentFormat,
    Extracted,
    FormatOptions,
    decode_text,
)
from translate_server.documents.formats.subtitles import Cue, SubtitleExtracted
from translate_server.errors import InvalidDocumentError


def extract(data: bytes, options: FormatOptions) -> Extracted:
    text, encoding = decode_text(data)
    try:
        vtt = webvtt.from_string(text)
    except webvtt.errors.MalformedFileError as exc:
        raise InvalidDocumentError(f"The WebVTT file cannot be read: {exc}") from exc
    captions = vtt.captions
    crlf = "\r\n" in text
    cues = [
        Cue(
            list(c.lines),
            c.start_time.in_milliseconds() / 1000,
            c.end_time.in_milliseconds() / 1000,
        )
        for c in captions
    ]

    def write(lines: list[list[str]]) -> bytes:
        for caption, cue_lines in zip(captions, lines, strict=True):
            caption.lines = cue_lines
        content = vtt.content  # written with LF: CRLF files get theirs back
        return encoding.encode(content.replace("\n", "\r\n") if crlf else content)

    return SubtitleExtracted(cues, write)


def sniff(data: bytes) -> bool:
    return data.removeprefix(b"\xef\xbb\xbf").startswith(b"WEBVTT")


FORMAT = DocumentFormat("vtt", (".vtt",), "text/vtt; charset=utf-8", extract, sniff)
