from __future__ import annotations

import io

import docx
import pptx

from tests.support.document_doubles import (
    make_docx,
    make_pptx,
    reverse_words,
    shout,
    translate_file,
)


def _shape(data: bytes) -> list[tuple[str, str, list[tuple[str, object, object]]]]:
    """Every paragraph: its style, alignment and runs (text, bold, italic)."""
    document = docx.Document(io.BytesIO(data))
    paragraphs = list(document.paragraphs)
    for table in document.tables:
        for cell in table._cells:
            paragraphs += cell.paragraphs
            for inner in cell.tables:
                paragraphs += [p for c in inner._cells for p in c.paragraphs]
    section = document.sections[0]
    paragraphs += section.header.paragraphs + section.footer.paragraphs
    return [
        (p.style.name, str(p.alignment), [(r.text, r.bold, r.italic) for r in p.runs])
        for p in paragraphs
    ]


def test_docx_echo_keeps_every_paragraph_run_and_style() -> None:
    data = make_docx()
    segments, rebuilt = translate_file("report.docx", data)
    assert segments == [
        "Quarterly report",
        "Revenue grew very strongly this quarter.",
        "Same look in two runs.",
        "Cell one",
        "Nested cell",
        "Header text",
        "Footer text",
    ]
    assert _shape(rebuilt) == _shape(data)


def test_docx_rewrite_changes_only_text() -> None:
    data = make_docx()
    _, rebuilt = translate_file("report.docx", data, shout)
    before, after = _shape(data), _shape(rebuilt)
    assert [(style, align) for style, align, _ in after] == [
        (style, align) for style, align, _ in before
    ]
    texts = ["".join(text for text, _, _ in runs) for _, _, runs in after]
    assert texts == ["".join(t for t, _, _ in runs).upper() for _, _, runs in before]
    # Formatting that differs within a paragraph keeps one run per style.
    assert after[1][2] == [
        ("REVENUE GREW ", None, None),
        ("VERY STRONGLY ", True, None),
        ("THIS QUARTER.", None, None),
    ]
    # Runs that look the same: the first takes the whole translation.
    assert after[2][2] == [("SAME LOOK IN TWO RUNS.", None, None), ("", None, None)]


def test_docx_words_that_move_keep_the_runs_and_their_styles() -> None:
    _, rebuilt = translate_file("report.docx", make_docx(), reverse_words)
    runs = _shape(rebuilt)[1][2]
    assert [bold for _, bold, _ in runs] == [None, True, None]
    assert all(text for text, _, _ in runs)
    assert "".join(text for text, _, _ in runs) == "quarter. this strongly very grew Revenue"


def _slides(data: bytes) -> list[list[tuple[str, object]]]:
    presentation = pptx.Presentation(io.BytesIO(data))
    slide = presentation.slides[0]
    frames = [shape.text_frame for shape in slide.shapes if shape.has_text_frame]
    frames.append(slide.notes_slide.notes_text_frame)
    return [[(run.text, run.font.bold) for run in p.runs] for f in frames for p in f.paragraphs]


def test_pptx_round_trips() -> None:
    data = make_pptx()
    segments, echoed = translate_file("deck.pptx", data)
    assert segments == [
        "Slide title",
        "First point",
        "Bold start, normal end.",
        "Speaker notes here",
    ]
    assert _slides(echoed) == _slides(data)
    _, shouted = translate_file("deck.pptx", data, shout)
    assert _slides(shouted) == [
        [(text.upper(), bold) for text, bold in paragraph] for paragraph in _slides(data)
    ]


def test_docx_runs_holding_pictures_are_left_in_place() -> None:
    from PIL import Image

    picture = io.BytesIO()
    Image.new("RGB", (4, 4), "red").save(picture, format="PNG")
    document = docx.Document()
    paragraph = document.add_paragraph("Before the picture ")
    paragraph.add_run().add_picture(io.BytesIO(picture.getvalue()))
    paragraph.add_run(" after it.")
    out = io.BytesIO()
    document.save(out)
    segments, rebuilt = translate_file("pic.docx", out.getvalue(), shout)
    assert segments == ["Before the picture", "after it."]
    result = docx.Document(io.BytesIO(rebuilt))
    [paragraph] = result.paragraphs
    assert len(result.inline_shapes) == 1
    assert [(run.text, bool(run._r.xpath("./w:drawing"))) for run in paragraph.runs] == [
        ("BEFORE THE PICTURE ", False),
        ("", True),
        (" AFTER IT.", False),
    ]
