"""DOCX through python-docx: every paragraph of the body (tables, nested tables and text
boxes included), of the headers and of the footers is a segment; its translation goes back
into its runs (see `runs`), so paragraph and character styles, tables, sections, images and
fields stay as they were. Footnotes, endnotes and comments are not translated: python-docx
does not read them as document parts.

A run counts as text when it holds only text, tabs and breaks. A run that holds anything
else (a picture, a field code, a footnote mark) is left alone, so that setting text cannot
delete it, and it splits its paragraph into separate segments, so that text never moves
from one side of it to the other.
"""

from __future__ import annotations

import io
import zipfile
from functools import partial

import docx
from docx.opc.constants import CONTENT_TYPE as CT
from docx.oxml.ns import qn
from docx.text.run import Run
from lxml import etree

from translate_server.documents.formats.base import DocumentFormat, Extracted, FormatOptions
from translate_server.documents.formats.runs import RunGroup, RunsExtracted, TextRun
from translate_server.errors import InvalidDocumentError

_STORIES = frozenset({CT.WML_DOCUMENT_MAIN, CT.WML_HEADER, CT.WML_FOOTER})
_TEXT_CHILDREN = frozenset(
    qn(tag)
    for tag in (
        "w:rPr",
        "w:t",
        "w:tab",
        "w:br",
        "w:cr",
        "w:noBreakHyphen",
        "w:softHyphen",
        "w:lastRenderedPageBreak",
    )
)
_P, _R, _HYPERLINK = qn("w:p"), qn("w:r"), qn("w:hyperlink")


def extract(data: bytes, options: FormatOptions) -> Extracted:
    try:
        document = docx.Document(io.BytesIO(data))
    except (zipfile.BadZipFile, KeyError, ValueError, etree.XMLSyntaxError) as exc:
        raise InvalidDocumentError(f"The DOCX file cannot be read: {exc}") from exc
    groups = []
    for part in document.part.package.iter_parts():
        if part.content_type not in _STORIES:
            continue
        for paragraph in part.element.iter(_P):
            groups.extend(group for group in _groups(paragraph, part) if group.text.strip())

    def save() -> bytes:
        out = io.BytesIO()
        document.save(out)
        return out.getvalue()

    return RunsExtracted(groups, save)


def _groups(paragraph: etree._Element, part: object) -> list[RunGroup]:
    """The paragraph's text runs, in groups between the runs that hold something else."""
    groups = [RunGroup([])]
    for element in paragraph.iter(_R):
        if _owner(element) is not paragraph:
            continue
        if any(child.tag not in _TEXT_CHILDREN for child in element):
            groups.append(RunGroup([]))
            continue
        run = Run(element, part)
        text = run.text
        if text:
            groups[-1].runs.append(TextRun(text, _style(element), partial(setattr, run, "text")))
    return groups


def _owner(run: etree._Element) -> etree._Element | None:
    """The paragraph a run belongs to (a text box's runs belong to the text box's own)."""
    parent = run.getparent()
    while parent is not None and parent.tag != _P:
        parent = parent.getparent()
    return parent


def _style(run: etree._Element) -> tuple[bytes, str | None]:
    properties = run.find(qn("w:rPr"))
    link = run.getparent()
    target = link.get(qn("r:id")) or link.get(qn("w:anchor")) if link.tag == _HYPERLINK else None
    return (b"" if properties is None else etree.tostring(properties), target)


def sniff(data: bytes) -> bool:
    return _zip_has(data, "word/document.xml")


def _zip_has(data: bytes, name: str) -> bool:
    if not data.startswith(b"PK"):
        return False
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return name in archive.namelist()
    except zipfile.BadZipFile:
        return False


FORMAT = DocumentFormat(
    "docx",
    (".docx",),
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    extract,
    sniff,
)
