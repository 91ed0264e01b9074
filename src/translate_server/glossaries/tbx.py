"""TBX, the terminology exchange format (ISO 30042), read and written by translate-toolkit:
one dictionary's entries from a file's concept entries (`termEntry`), and back."""

from __future__ import annotations

from lxml import etree
from translate.storage import tbx

from translate_server.errors import InvalidRequestError
from translate_server.glossaries.model import check_size, check_term

_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
TBX_MEDIA_TYPE = "application/x-tbx+xml"


class InvalidTbxError(InvalidRequestError):
    """A TBX file that cannot be read: its message names the line."""

    code = "invalid_tbx_file"


def read_tbx(data: bytes, source_lang: str, target_lang: str) -> dict[str, str]:
    """The file's terms from `source_lang` into `target_lang` (base languages: a `langSet` of
    `en-GB` is English), each concept's first term in each. Concepts without a term in both
    languages are left out; a file with none, or one that is not TBX, is a 400."""
    try:
        store = tbx.tbxfile.parsestring(data)
    except etree.XMLSyntaxError as error:
        raise InvalidTbxError(
            f"The TBX file cannot be read: line {error.lineno}: {error.msg}", param="file"
        ) from None
    entries: dict[str, str] = {}
    for unit in store.units:
        terms: dict[str, str] = {}
        for node in unit.getlanguageNodes():
            language = (node.get(_XML_LANG) or "").split("-")[0].split("_")[0].lower()
            text = unit.getNodeText(node)
            if language and text and language not in terms:
                terms[language] = text
        source, target = terms.get(source_lang), terms.get(target_lang)
        if source and target:
            line = f"file (line {unit.xmlelement.sourceline})"
            entries.setdefault(check_term(source, line), check_term(target, line))
    if not entries:
        raise InvalidTbxError(
            f"The TBX file holds no concept with a term in both {source_lang} and {target_lang}.",
            param="file",
        )
    check_size(entries, "file")
    return entries


def write_tbx(entries: dict[str, str], source_lang: str, target_lang: str) -> bytes:
    """The entries as a TBX file: a concept entry per term, its two languages' terms."""
    store = tbx.tbxfile(sourcelanguage=source_lang, targetlanguage=target_lang)
    for source, target in entries.items():
        unit = store.addsourceunit(source)
        unit.target = target
    return bytes(store)
