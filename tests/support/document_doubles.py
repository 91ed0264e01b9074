"""Test doubles and fixtures for document tests: translators that rewrite segments, and
small Office files built on the spot."""

from __future__ import annotations

import io
import re
from collections.abc import Callable

import docx
import pptx
from docx.enum.text import WD_ALIGN_PARAGRAPH

from translate_server.documents.formats import FormatOptions, detect_format, extract

_TAG = re.compile(r"(<[^>]*>|`[^`]*`|%\(?\w*\)?[sd]|\{[^}]*\})")

Rewrite = Callable[[str], str]


def shout(text: str) -> str:
    """Upper-cases words, never tags, code spans or placeholders: only text changes."""
    return "".join(part if _TAG.fullmatch(part) else part.upper() for part in _TAG.split(text))


def reverse_words(text: str) -> str:
    """Word order reversed on each line: a translation whose words move around."""
    return "\n".join(" ".join(reversed(line.split(" "))) for line in text.split("\n"))


def translate_file(
    name: str, data: bytes, rewrite: Rewrite | None = None, **options: object
) -> tuple[list[str], bytes]:
    """The file's segments and the file rebuilt from their rewritten versions."""
    extracted = extract(detect_format(name, data), data, FormatOptions(**options))
    translations = [rewrite(s) if rewrite else s for s in extracted.segments]
    return extracted.segments, extracted.rebuild(translations)


def make_docx() -> bytes:
    document = docx.Document()
    document.add_heading("Quarterly report", level=1)
    paragraph = document.add_paragraph("Revenue grew ", style="List Bullet")
    paragraph.add_run("very strongly").bold = True
    paragraph.add_run(" this quarter.")
    paragraph.alignment = WD_ALIGN_PARAGRAPH.CENTER
    uniform = document.add_paragraph("Same look ")
    uniform.add_run("in two runs.")
    document.add_paragraph("")  # empty: no segment
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "Cell one"
    inner = table.cell(0, 1).add_table(rows=1, cols=1)
    inner.cell(0, 0).text = "Nested cell"
    section = document.sections[0]
    section.header.paragraphs[0].text = "Header text"
    section.footer.paragraphs[0].text = "Footer text"
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def make_pptx() -> bytes:
    presentation = pptx.Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[1])
    slide.shapes.title.text = "Slide title"
    body = slide.placeholders[1].text_frame
    body.text = "First point"
    paragraph = body.add_paragraph()
    bold = paragraph.add_run()
    bold.text = "Bold start, "
    bold.font.bold = True
    paragraph.add_run().text = "normal end."
    slide.notes_slide.notes_text_frame.text = "Speaker notes here"
    out = io.BytesIO()
    presentation.save(out)
    return out.getvalue()
