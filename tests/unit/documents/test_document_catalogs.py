from __future__ import annotations

import polib
import pytest
from translate.storage import xliff, xliff2

from translate_server.documents.formats import FormatOptions, detect_format, extract
from translate_server.documents.formats.base import SegmentReview

from tests.support.document_doubles import shout, translate_file

PO = """# A demo catalog
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Language: de\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

#: app.py:10
#, python-format
msgid "%d file"
msgid_plural "%d files"
msgstr[0] ""
msgstr[1] ""

#. A comment for translators
#: app.py:12
msgctxt "menu"
msgid "Open"
msgstr "Öffnen"

#, python-brace-format
msgid "Close {name}"
msgstr ""

#, fuzzy
#| msgid "Save all"
msgid "Save"
msgstr "Alles sichern"

#~ msgid "Old"
#~ msgstr "Alt"
"""


def _entries(data: bytes) -> list[polib.POEntry]:
    return [entry for entry in polib.pofile(data.decode()) if not entry.obsolete]


def test_po_untranslated_and_fuzzy_entries_are_translated_and_marked_fuzzy() -> None:
    segments, rebuilt = translate_file("de.po", PO.encode(), shout, target_lang="de")
    assert segments == ["%d file", "%d files", "Close {name}", "Save"]
    plural, opened, closed, saved = _entries(rebuilt)
    assert plural.msgstr_plural == {0: "%d FILE", 1: "%d FILES"}
    assert plural.flags == ["fuzzy", "python-format"]
    assert plural.occurrences == [("app.py", "10")]
    assert (opened.msgstr, opened.flags, opened.msgctxt) == ("Öffnen", [], "menu")
    assert opened.comment == "A comment for translators"
    assert (closed.msgstr, closed.flags) == ("CLOSE {name}", ["fuzzy", "python-brace-format"])
    assert (saved.msgstr, saved.previous_msgid) == ("SAVE", "Save all")
    catalog = polib.pofile(rebuilt.decode())
    assert [e.msgid for e in catalog.obsolete_entries()] == ["Old"]
    assert catalog.metadata == polib.pofile(PO).metadata


def test_po_echo_keeps_every_entry_but_its_new_translation() -> None:
    _, rebuilt = translate_file("de.po", PO.encode())
    for before, after in zip(_entries(PO.encode()), _entries(rebuilt), strict=True):
        assert (after.msgid, after.msgctxt, after.occurrences, after.comment) == (
            before.msgid,
            before.msgctxt,
            before.occurrences,
            before.comment,
        )
        assert [f for f in after.flags if f != "fuzzy"] == [f for f in before.flags if f != "fuzzy"]


def test_po_retranslate_redoes_translated_entries() -> None:
    segments, rebuilt = translate_file("de.po", PO.encode(), shout, retranslate=True)
    assert "Open" in segments
    opened = _entries(rebuilt)[1]
    assert (opened.msgstr, opened.flags) == ("OPEN", ["fuzzy"])


def test_po_plural_forms_come_from_the_target_language_when_the_header_has_none() -> None:
    catalog = 'msgid ""\nmsgstr ""\n\nmsgid "One apple"\nmsgid_plural "%d apples"\nmsgstr[0] ""\n'
    _, rebuilt = translate_file("ru.po", catalog.encode(), shout, target_lang="RU")
    parsed = polib.pofile(rebuilt.decode())
    assert parsed[0].msgstr_plural == {0: "ONE APPLE", 1: "%d APPLES", 2: "%d APPLES"}
    assert parsed.metadata["Plural-Forms"].startswith("nplurals=3;")
    _, japanese = translate_file("ja.po", catalog.encode(), shout, target_lang="ja")
    assert polib.pofile(japanese.decode())[0].msgstr_plural == {0: "%d APPLES"}


XLIFF12 = b"""<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
 <file original="app" source-language="en" target-language="de" datatype="plaintext">
  <body>
   <trans-unit id="hello"><source>Hello world</source></trans-unit>
   <trans-unit id="markup"><source>Press <g id="b">Save</g> now</source></trans-unit>
   <trans-unit id="done"><source>Done</source><target state="translated">Fertig</target></trans-unit>
  </body>
 </file>
</xliff>"""

XLIFF20 = b"""<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="de">
 <file id="f1">
  <unit id="hello"><segment><source>Hello world</source></segment></unit>
  <unit id="done"><segment state="final"><source>Done</source><target>Fertig</target></segment></unit>
 </file>
</xliff>"""


def test_xliff_12_targets_are_filled_and_marked_for_review() -> None:
    segments, rebuilt = translate_file("app.xlf", XLIFF12, shout)
    assert segments == ["Hello world"]
    units = {unit.xmlelement.get("id"): unit for unit in xliff.xlifffile.parsestring(rebuilt).units}
    assert units["hello"].target == "HELLO WORLD"
    assert (
        units["hello"].xmlelement.find("{urn:oasis:names:tc:xliff:document:1.2}target").get("state")
        == "needs-review-translation"
    )
    assert units["markup"].target in ("", None)  # inline markup: left for a human
    assert units["done"].target == "Fertig"


def test_xliff_20_targets_are_filled_and_translated_ones_kept() -> None:
    segments, rebuilt = translate_file("app.xliff", XLIFF20, shout)
    assert segments == ["Hello world"]
    units = {unit.getid(): unit for unit in xliff2.Xliff2File.parsestring(rebuilt).units}
    assert units["hello"].target == "HELLO WORLD"
    assert units["done"].target == "Fertig"
    _, again = translate_file("app.xliff", XLIFF20, shout, retranslate=True)
    assert {u.getid(): u.target for u in xliff2.Xliff2File.parsestring(again).units} == {
        "hello": "HELLO WORLD",
        "done": "DONE",
    }


def test_po_placeholders_changed_by_the_translator_are_put_back() -> None:
    catalog = (
        'msgid ""\nmsgstr ""\n\n#, python-brace-format\nmsgid "Hello {name}, {count} new"\n'
        'msgstr ""\n\n#, python-format\nmsgid "%(user)s has %(n)d files"\nmsgstr ""\n\n'
        'msgid "Literal {braces}"\nmsgstr ""\n'
    )
    translations = {
        "Hello {name}, {count} new": "Hola {nombre}, {cuenta} nuevos",
        "%(user)s has %(n)d files": "%(n)d archivos tiene %(user)s",
        "Literal {braces}": "Literal {llaves}",
    }
    _, rebuilt = translate_file("es.po", catalog.encode(), translations.__getitem__)
    assert [e.msgstr for e in _entries(rebuilt)] == [
        "Hola {name}, {count} nuevos",  # renamed: restored in order
        "%(n)d archivos tiene %(user)s",  # kept, only moved: left as the translator put them
        "Literal {llaves}",  # not a format string: nothing to protect
    ]


@pytest.mark.parametrize(
    ("name", "data", "known"),
    [
        # Only finished translations: not the fuzzy one, the plural or the obsolete one.
        ("app.po", PO.encode(), [("Open", "Öffnen")]),
        ("app.xlf", XLIFF12, [("Done", "Fertig")]),
        ("app.xliff", XLIFF20, [("Done", "Fertig")]),
    ],
)
def test_a_catalogs_translated_entries_are_known_beside_its_segments(
    name: str, data: bytes, known: list[tuple[str, str]]
) -> None:
    extracted = extract(detect_format(name, data), data, FormatOptions(target_lang="de"))
    assert extracted.known == known
    assert not set(extracted.segments) & {source for source, _ in known}


def _reviewed(name: str, data: bytes, flagged: set[int], **options: object) -> bytes:
    """The file with its segments shouted, those in `flagged` estimated low."""
    extracted = extract(detect_format(name, data), data, FormatOptions(**options))
    reviews = [
        SegmentReview(0.12 if i in flagged else 0.93, i in flagged)
        for i in range(len(extracted.segments))
    ]
    return extracted.rebuild_reviewed([shout(s) for s in extracted.segments], reviews)


def test_po_marks_fuzzy_exactly_the_entries_that_need_review() -> None:
    # Segments: the plural entry's two, "Close {name}", "Save" (fuzzy before, retranslated).
    plural, opened, closed, saved = _entries(_reviewed("de.po", PO.encode(), {1}))
    assert plural.flags == ["fuzzy", "python-format"]  # its plural form needs review
    assert closed.flags == ["python-brace-format"]  # trusted: no fuzzy flag
    assert "fuzzy" not in saved.flags and saved.previous_msgid is None
    assert (saved.msgstr, opened.flags) == ("SAVE", [])
    trusted = _entries(_reviewed("de.po", PO.encode(), set()))
    assert not any("fuzzy" in entry.flags for entry in trusted)


def test_xliff_12_states_follow_the_review() -> None:
    rebuilt = _reviewed("app.xlf", XLIFF12, {0})
    target = "{urn:oasis:names:tc:xliff:document:1.2}target"
    units = {unit.xmlelement.get("id"): unit for unit in xliff.xlifffile.parsestring(rebuilt).units}
    assert units["hello"].xmlelement.find(target).get("state") == "needs-review-translation"
    assert "quality estimate 0.12" in units["hello"].getnotes()
    trusted = _reviewed("app.xlf", XLIFF12, set())
    unit = xliff.xlifffile.parsestring(trusted).units[0]
    assert unit.xmlelement.find(target).get("state") == "translated"
    assert unit.xmlelement.get("approved") != "yes"  # machine translated: never approved


def test_xliff_20_states_follow_the_review() -> None:
    flagged = xliff2.Xliff2File.parsestring(_reviewed("app.xliff", XLIFF20, {0})).units[0]
    assert flagged.xmlelement.get("state") == "initial"
    assert "quality estimate 0.12" in flagged.getnotes()
    trusted = xliff2.Xliff2File.parsestring(_reviewed("app.xliff", XLIFF20, set())).units[0]
    assert trusted.xmlelement.get("state") == "translated"
    assert trusted.getnotes() == ""
