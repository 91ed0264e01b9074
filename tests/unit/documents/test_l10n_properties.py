"""Whatever a translator answers (markup, quotes, escapes, placeholders, braces, line
breaks), a localization file stays a file of its format: each output parses with the
format's own reader, and reads back what was given."""

from __future__ import annotations

import csv
import io
import json
import plistlib
from pathlib import Path

import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from lxml import etree
from translate.storage import properties, resx, ts2

from translate_server.documents.formats import detect_format, extract
from translate_server.documents.formats.base import FormatOptions
from translate_server.documents.formats.l10n import icu
from translate_server.documents.formats.l10n.slots import SlotsExtracted

FIXTURES = Path(__file__).parents[2] / "fixtures" / "l10n"

# Text of every kind a model may answer, the formats' special characters weighted in.
PIECES = st.sampled_from(
    [
        "<b>",
        "</i>",
        "<br/>",
        "&",
        "&amp;",
        '"',
        "'",
        "\\",
        "\\n",
        "{",
        "}",
        "{name}",
        "{{count}}",
        "%1$s",
        "%@",
        "%d",
        "%%",
        "#",
        ": ",
        " #",
        "- ",
        "]]>",
        "@",
        "?",
        "\n",
        "\t",
        "\r",
        "=",
        ";",
        ",",
        "$t(x)",
        "$1",
        "'{'",
        "<![CDATA[",
        "\u00e9",
        "\u4e2d",
        "\U0001f600",
        " ",
        "--",
        "*/",
        "/*",
    ]
)
TEXT = st.lists(PIECES | st.text(max_size=6), max_size=8).map("".join)
# No shrinking: each example rebuilds whole files, and a failure's example is printed as it is.
SETTINGS = settings(
    max_examples=15,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow],
)


def _rebuilt(name: str, data: st.DataObject, language: str = "pl") -> tuple[bytes, list[str]]:
    raw = (FIXTURES / name).read_bytes()
    extracted = extract(detect_format(name, raw), raw, FormatOptions(target_lang=language))
    assert isinstance(extracted, SlotsExtracted)
    answers = [data.draw(TEXT) for _ in extracted.segments]
    return extracted.rebuild(answers), answers


@SETTINGS
@given(st.data())
def test_json_and_arb_stay_json(data: st.DataObject) -> None:
    for name in ("handmade_i18next.json", "next_i18next_common.json", "flutter_material_en.arb"):
        out, _ = _rebuilt(name, data)
        parsed = json.loads(out)
        if name.startswith("handmade"):
            icu.parse(parsed["icu"])  # the ICU message still parses
            icu.parse(parsed["gender"])


@SETTINGS
@given(st.data())
def test_xml_formats_stay_xml_and_read_back(data: st.DataObject) -> None:
    for name in ("sunflower_strings.xml", "handmade_markup_strings.xml", "qt_linguist_fr.ts"):
        out, _ = _rebuilt(name, data)
        etree.fromstring(out)
    out, answers = _rebuilt("aspnetcore_SharedValidationMessages.resx", data)
    etree.fromstring(out)
    store = resx.RESXFile.parsestring(out)
    values = [
        str(u.target or u.source)
        for u in store.units
        if u.getid().startswith(("Reg", "Val", "Page"))
    ]
    assert len(values) == len(answers)
    out, _ = _rebuilt("qt_linguist_fr.ts", data)
    ts2.tsfile.parsestring(out)


@SETTINGS
@given(st.data())
def test_plists_stay_plists(data: st.DataObject) -> None:
    out, _ = _rebuilt("wikipedia_ios_Localizable.stringsdict", data, "ar")
    plistlib.loads(out)
    out, _ = _rebuilt("handmade_Localizable.xcstrings", data, "ru")
    json.loads(out)


@settings(SETTINGS, max_examples=8)  # PyYAML reads in pure Python: the slowest reader here
@given(st.data())
def test_yaml_reads_back_what_was_given(data: st.DataObject) -> None:
    raw = (FIXTURES / "rails_activesupport_en.yml").read_bytes()
    extracted = extract(detect_format("x.yml", raw), raw, FormatOptions(target_lang="de"))
    answers = [data.draw(TEXT) for _ in extracted.segments]
    parsed = yaml.safe_load(extracted.rebuild(answers))
    words = parsed["de"]["support"]["array"]
    assert isinstance(words["words_connector"], str)
    out, _ = _rebuilt("rails_actionview_en.yml", data, "ar")
    yaml.safe_load(out)


@SETTINGS
@given(st.data())
def test_properties_strings_and_csv_read_back(data: st.DataObject) -> None:
    out, answers = _rebuilt("handmade_latin1.properties", data)
    store = properties.javafile.parsestring(out)
    assert len([u for u in store.units if u.name]) == 6
    out, answers = _rebuilt("handmade_utf16.strings", data)
    store = properties.stringsfile.parsestring(out)
    assert len([u for u in store.units if u.name]) == 3
    out, answers = _rebuilt("wikipedia_ios_Localizable.strings", data)
    store = properties.stringsutf8file.parsestring(out)
    # Counted, not compared: translate-toolkit reads a value ending in `\\` as ending in `"`.
    assert len([u for u in store.units if u.name]) == len(answers)
    out, answers = _rebuilt("godot_text.csv", data, "de")
    rows = list(csv.reader(io.StringIO(out.decode())))
    assert [len(row) for row in rows] == [4, 4, 4]
