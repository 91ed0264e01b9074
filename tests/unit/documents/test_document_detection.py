from __future__ import annotations

import pytest

from translate_server.documents.formats import FormatOptions, detect_format, extract
from translate_server.errors import InvalidDocumentError, UnsupportedDocumentFormatError

from tests.support.document_doubles import make_docx, make_pptx


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("notes.txt", "txt"),
        ("README.MD", "md"),
        ("page.html", "html"),
        ("a.htm", "html"),
        ("talk.srt", "srt"),
        ("talk.vtt", "vtt"),
        ("de.po", "po"),
        ("app.pot", "po"),
        ("app.xlf", "xliff"),
        ("app.xliff", "xliff"),
        ("r.docx", "docx"),
        ("d.pptx", "pptx"),
    ],
)
def test_extension_decides(name: str, expected: str) -> None:
    assert detect_format(name, b"whatever").name == expected


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"WEBVTT\n\n00:01.000 --> 00:02.000\nHi\n", "vtt"),
        (b"\xef\xbb\xbf1\r\n00:00:01,000 --> 00:00:02,000\r\nHi\r\n", "srt"),
        (b'# comment\nmsgid ""\nmsgstr ""\n', "po"),
        (b'<?xml version="1.0"?>\n<xliff version="1.2">', "xliff"),
        (b"<!-- x -->\n<!DOCTYPE html><html><p>Hi</p>", "html"),
        (b"Just some words.\n", "txt"),
    ],
)
def test_content_decides_without_a_name(data: bytes, expected: str) -> None:
    assert detect_format(None, data).name == expected


def test_office_files_are_recognised_by_their_parts() -> None:
    assert detect_format(None, make_docx()).name == "docx"
    assert detect_format("upload", make_pptx()).name == "pptx"


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("scan.pdf", b"%PDF-1.7"),
        ("sheet.xlsx", b"PK\x03\x04"),
        (None, b"\x00\x01\x02\xff\xfe"),
    ],
)
def test_anything_else_is_unsupported(name: str | None, data: bytes) -> None:
    with pytest.raises(UnsupportedDocumentFormatError) as caught:
        detect_format(name, data)
    assert caught.value.status_code == 400
    assert caught.value.code == "unsupported_document_format"
    assert ".docx" in caught.value.message and ".srt" in caught.value.message


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("broken.docx", b"PK\x03\x04 not really a zip"),
        ("broken.pptx", b"nothing"),
        ("broken.xlf", b"<xliff><unclosed"),
    ],
)
def test_unreadable_files_are_a_client_error(name: str, data: bytes) -> None:
    with pytest.raises(InvalidDocumentError) as caught:
        extract(detect_format(name, data), data, FormatOptions())
    assert (caught.value.status_code, caught.value.code) == (400, "invalid_document")
