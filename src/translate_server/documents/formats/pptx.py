"""PPTX through python-pptx: every paragraph of every slide's shapes (groups, tables and
placeholders included) and of the speaker notes is a segment; its translation goes back into
its runs (see `runs`), so fonts, colours, links and layout stay as they were. Line breaks
(`<a:br/>`) split a paragraph into separate segments, since they sit between runs."""

from __future__ import annotations

import io
import zipfile
from functools import partial

import pptx
from lxml import etree
from pptx.exc import PackageNotFoundError
from pptx.oxml.ns import qn
from pptx.text.text import _Run

from translate_server.documents.formats.base import DocumentFormat, Extracted, FormatOptions
from translate_server.documents.formats.docx import _zip_has
from translate_server.documents.formats.runs import RunGroup, RunsExtracted, TextRun
from translate_server.errors import InvalidDocumentError

_P, _R, _BR, _RPR = qn("a:p"), qn("a:r"), qn("a:br"), qn("a:rPr")


def extract(data: bytes, options: FormatOptions) -> Extracted:
    try:
        presentation = pptx.Presentation(io.BytesIO(data))
    except (
        zipfile.BadZipFile,
        KeyError,
        ValueError,
        PackageNotFoundError,
        etree.XMLSyntaxError,
    ) as exc:
        raise InvalidDocumentError(f"The PPTX file cannot be read: {exc}") from exc
    groups: list[RunGroup] = []
    for slide in presentation.slides:
        trees = [slide.element]
        if slide.has_notes_slide:
            trees.append(slide.notes_slide.element)
        for tree in trees:
            for paragraph in tree.iter(_P):
                groups.extend(group for group in _groups(paragraph) if group.text.strip())

    def save() -> bytes:
        out = io.BytesIO()
        presentation.save(out)
        return out.getvalue()

    return RunsExtracted(groups, save)


def _groups(paragraph: etree._Element) -> list[RunGroup]:
    groups = [RunGroup([])]
    for child in paragraph:
        if child.tag == _BR:
            groups.append(RunGroup([]))
        elif child.tag == _R:
            run = _Run(child, None)
            if run.text:
                properties = child.find(_RPR)
                style = b"" if properties is None else etree.tostring(properties)
                groups[-1].runs.append(TextRun(run.text, style, partial(setattr, run, "text")))
    return groups


def sniff(data: bytes) -> bool:
    return _zip_has(data, "ppt/presentation.xml")


FORMAT = DocumentFormat(
    "pptx",
    (".pptx",),
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    extract,
    sniff,
)
