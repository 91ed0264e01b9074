""".NET `.resx`, written by hand over `xmltext`: translate-toolkit's RESX store serializes the
whole tree again through lxml (the schema block's layout and the declaration change).

Each string resource (`<data name>` with a `<value>` and no `type` or `mimetype`: those are
images, sizes and other objects) has its value translated, its `<comment>` told to the model;
WinForms' designer entries (`>>name`, `$this.name`) and everything else stay byte for byte.
`{0}` (composite format) placeholders are put back.
"""

from __future__ import annotations

from translate_server.documents.formats.base import (
    DocumentFormat,
    Extracted,
    FormatOptions,
    decode_text,
)
from translate_server.documents.formats.l10n.slots import Slot, SlotsExtracted, single, slot
from translate_server.documents.formats.l10n.xmltext import escape, parse, strip_invalid, text_of
from translate_server.errors import InvalidDocumentError


def encode(value: str) -> str:
    return escape(strip_invalid(value))


def extract(data: bytes, options: FormatOptions) -> Extracted:
    text, encoding = decode_text(data)
    try:
        root = parse(text)
    except ValueError as exc:
        raise InvalidDocumentError(f"The .resx file cannot be read: {exc}") from exc
    if root.tag != "root":
        raise InvalidDocumentError("A .resx file is a `<root>` element.")
    slots: list[Slot] = []
    for data_element in root.findall("data"):
        name = data_element.attrs.get("name", "")
        if (
            "type" in data_element.attrs
            or "mimetype" in data_element.attrs
            or name.startswith((">>", "$"))
        ):
            continue
        value = data_element.find("value")
        if value is None or value.children:
            continue
        source = text_of(text, value)
        comment = data_element.find("comment")
        note = text_of(text, comment).strip() if comment is not None else ""
        if source.strip():
            told = f"Comment: {note}" if note else None
            slots.append(slot(value.inner_start, value.inner_end, single(source, told), encode))
    return SlotsExtracted(text, slots, encoding.encode)


FORMAT = DocumentFormat("resx", (".resx",), "application/xml", extract)
