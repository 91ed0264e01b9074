"""Memory files: TMX 1.4, XLIFF 1.2 and 2.0, gettext PO/POT/MO, CSV and TSV read into entries,
each by a real library (translate-toolkit, polib, the csv module); TMX written.

A file that says its languages (TMX's `xml:lang`, XLIFF's source and target languages, a PO
header's `Language`, a CSV header of language tags) is read in them; otherwise the languages
given with the upload are used. What cannot be read is an `InvalidMemoryFileError` naming the
line or unit.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator, Sequence
from pathlib import PurePath

from translate_server.errors import InvalidMemoryFileError
from translate_server.memory.entries import Entry, UnknownLanguageError, normalized_tag

FORMATS = ("tmx", "xliff", "po", "mo", "csv", "tsv")
TMX_MEDIA_TYPE = "application/x-tmx+xml"  # a memory exported, on /memories and DeepL's routes
_EXTENSIONS = {
    ".tmx": "tmx",
    ".xlf": "xliff",
    ".xliff": "xliff",
    ".po": "po",
    ".pot": "po",
    ".mo": "mo",
    ".gmo": "mo",
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
}
_MO_MAGIC = (b"\xde\x12\x04\x95", b"\x95\x04\x12\xde")


def format_of(filename: str | None, data: bytes) -> str:
    """The file's format by its extension, else by its first bytes."""
    suffix = PurePath(filename or "").suffix.lower()
    if suffix in _EXTENSIONS:
        return _EXTENSIONS[suffix]
    head = data[:4096]
    if head[:4] in _MO_MAGIC:
        return "mo"
    if b"<tmx" in head:
        return "tmx"
    if b"<xliff" in head:
        return "xliff"
    if b'msgid "' in head:
        return "po"
    if suffix:
        raise InvalidMemoryFileError(
            f"`{suffix}` files are not read; memories read {', '.join(_EXTENSIONS)}.",
            param="file",
            code="unsupported_memory_format",
        )
    return "tsv" if b"\t" in head.split(b"\n", 1)[0] else "csv"


def read_entries(
    data: bytes, filename: str | None, source_lang: str | None, target_lang: str | None
) -> list[Entry]:
    """The file's entries with a source and a translation, in file order."""
    kind = format_of(filename, data)
    languages = _Languages(source_lang, target_lang)
    return list(_READERS[kind](data, languages))


class _Languages:
    """The upload's languages, used where the file does not say its own."""

    def __init__(self, source: str | None, target: str | None) -> None:
        self.source = _tag(source, "source_lang") if source else None
        self.target = _tag(target, "target_lang") if target else None

    def pair(self, source: str | None, target: str | None, where: str) -> tuple[str, str]:
        found_source = _tag(source, where) if source else self.source
        found_target = _tag(target, where) if target else self.target
        if found_source is None or found_target is None:
            missing = "source_lang" if found_source is None else "target_lang"
            raise InvalidMemoryFileError(
                f"The file does not say its {missing.split('_')[0]} language ({where}): give "
                f"`{missing}` with the upload.",
                param=missing,
            )
        return found_source, found_target


def _tag(tag: str, where: str) -> str:
    try:
        return normalized_tag(tag)
    except UnknownLanguageError as exc:
        raise InvalidMemoryFileError(f"{exc} ({where}).", param="file") from None


# -- TMX ---------------------------------------------------------------------------------------
def _tmx(data: bytes, languages: _Languages) -> Iterator[Entry]:
    from translate.storage import lisa, tmx

    store = _parsed("TMX", lambda: tmx.tmxfile.parsestring(data))
    header_source = store.sourcelanguage if store.sourcelanguage not in (None, "*all*") else None
    for number, unit in enumerate(store.units, 1):
        where = f"unit {number}, line {unit.xmlelement.sourceline}"
        variants = [
            (lisa.getXMLlang(node), unit.getNodeText(node)) for node in unit.getlanguageNodes()
        ]
        if len(variants) < 2:
            continue
        source_tag = unit.xmlelement.get("srclang") or header_source or languages.source
        if source_tag in (None, "*all*"):
            source_tag = variants[0][0]
        if not source_tag:
            raise InvalidMemoryFileError(
                f"The TMX file has no source language ({where}).", param="file"
            )
        source = _tag(source_tag, where)
        texts = {_tag(lang, where): text for lang, text in variants if lang}
        if source not in texts:
            continue  # a unit without the source language has nothing to match
        note = "\n".join(unit.getnotes().splitlines()) or None
        for target, text in texts.items():
            if target != source and texts[source].strip() and text and text.strip():
                yield Entry(texts[source], text, source, target, note)


def write_tmx(entries: Sequence[Entry]) -> bytes:
    """The entries as a TMX 1.4 document: one unit per entry."""
    from translate.storage import tmx

    source = entries[0].source_lang if entries else "en"
    store = tmx.tmxfile(sourcelanguage=source)
    if len({entry.source_lang for entry in entries}) > 1:
        header = store.document.getroot().find(store.namespaced("header"))
        if header is not None:
            header.set("srclang", "*all*")
    for entry in entries:
        unit = store.addsourceunit("")
        unit.xmlelement.clear()
        unit.xmlelement.set("srclang", entry.source_lang)
        if entry.note:
            unit.addnote(entry.note)
        unit.xmlelement.append(unit.createlanguageNode(entry.source_lang, entry.source, "source"))
        unit.xmlelement.append(unit.createlanguageNode(entry.target_lang, entry.target, "target"))
    return bytes(store)


# -- XLIFF -------------------------------------------------------------------------------------
_XLIFF2 = b"urn:oasis:names:tc:xliff:document:2."


def _xliff(data: bytes, languages: _Languages) -> Iterator[Entry]:
    from translate.storage import xliff, xliff2

    kind = xliff2.Xliff2File if _XLIFF2 in data[:4096] else xliff.xlifffile
    store = _parsed("XLIFF", lambda: kind.parsestring(data))
    source, target = languages.pair(
        store.getsourcelanguage(), store.gettargetlanguage(), "the <xliff> or <file> element"
    )
    for unit in store.units:
        if unit.isheader() or not unit.source or not unit.source.strip():
            continue
        if unit.target and str(unit.target).strip():
            note = unit.getnotes() or None
            yield Entry(str(unit.source), str(unit.target), source, target, note)


# -- gettext -----------------------------------------------------------------------------------
def _po(data: bytes, languages: _Languages) -> Iterator[Entry]:
    import polib

    def parse() -> polib.POFile:
        text = data.decode("utf-8-sig")
        return polib.pofile(text)

    catalog = _parsed("PO", parse)
    yield from _catalog(catalog, languages)


def _mo(data: bytes, languages: _Languages) -> Iterator[Entry]:
    import polib

    catalog = _parsed("MO", lambda: polib.mofile(data))
    yield from _catalog(catalog, languages)


def _catalog(catalog: object, languages: _Languages) -> Iterator[Entry]:
    """A catalog's translated entries (not obsolete, not fuzzy); a plural entry as its
    singular and its plural form; `msgctxt` as the note."""
    target_tag = catalog.metadata.get("Language") or None
    source, target = languages.pair(None, target_tag, "the catalog's `Language` header")
    for entry in catalog:
        if entry.obsolete or "fuzzy" in entry.flags or not entry.msgid:
            continue
        note = entry.msgctxt or None
        if entry.msgid_plural:
            forms = entry.msgstr_plural
            pairs = [(entry.msgid, forms.get(0, "")), (entry.msgid_plural, forms.get(1, ""))]
        else:
            pairs = [(entry.msgid, entry.msgstr)]
        for msgid, msgstr in pairs:
            if msgid.strip() and msgstr.strip():
                yield Entry(msgid, msgstr, source, target, note)


# -- CSV and TSV -------------------------------------------------------------------------------
def _csv(data: bytes, languages: _Languages) -> Iterator[Entry]:
    yield from _table(data, languages, ",")


def _tsv(data: bytes, languages: _Languages) -> Iterator[Entry]:
    yield from _table(data, languages, "\t")


def _table(data: bytes, languages: _Languages, delimiter: str) -> Iterator[Entry]:
    """Rows of `source, target[, note]`. A first row of two language tags (`en,de`) names
    the languages; one of `source,target[,note]` is a header; any other is an entry."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InvalidMemoryFileError(
            f"The file is not UTF-8 text (line {line}).", param="file"
        ) from None
    rows = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    source, target = languages.source, languages.target
    try:
        for number, row in enumerate(rows, 1):
            line = rows.line_num
            if not any(cell.strip() for cell in row):
                continue
            if number == 1 and (header := _header(row)) is not None:
                source, target = header if header != ("", "") else (source, target)
                continue
            if len(row) < 2:
                raise InvalidMemoryFileError(
                    f"Line {line} has a single column; a memory row has a source and a "
                    "translation (and optionally a note).",
                    param="file",
                )
            if source is None or target is None:
                source, target = languages.pair(None, None, f"no language header, line {line}")
            if row[0].strip() and row[1].strip():
                yield Entry(
                    row[0], row[1], source, target, (row[2] if len(row) > 2 else "") or None
                )
    except csv.Error as exc:
        raise InvalidMemoryFileError(
            f"The file cannot be read as CSV (line {rows.line_num}): {exc}.", param="file"
        ) from None


def _header(row: list[str]) -> tuple[str, str] | None:
    """The languages of a header row of tags; ("", "") for a `source,target` header; None
    where the row is an entry."""
    cells = [cell.strip() for cell in row]
    if [c.lower() for c in cells[:2]] == ["source", "target"]:
        return ("", "")
    if len(cells) >= 2:
        try:
            return normalized_tag(cells[0]), normalized_tag(cells[1])
        except UnknownLanguageError:
            return None
    return None


def _parsed(kind: str, parse: Callable[[], object]) -> object:
    try:
        return parse()
    except Exception as exc:  # noqa: BLE001 - lxml's, polib's and the toolkit's own errors
        raise InvalidMemoryFileError(
            f"The {kind} file cannot be read: {exc}", param="file"
        ) from None


_READERS: dict[str, Callable[[bytes, _Languages], Iterator[Entry]]] = {
    "tmx": _tmx,
    "xliff": _xliff,
    "po": _po,
    "mo": _mo,
    "csv": _csv,
    "tsv": _tsv,
}
