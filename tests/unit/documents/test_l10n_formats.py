"""Localization files round trip: on files of real projects (tests/fixtures/l10n), nothing
outside the translated values changes, each format's own reader reads the translations
back, placeholders are kept, plural groups get the target language's CLDR categories and
untranslatable entries stay as they were."""

from __future__ import annotations

import csv
import io
import json
import plistlib
import re
from pathlib import Path

import pytest
import yaml
from babel import Locale
from lxml import etree
from translate.storage import properties, resx, ts2

from translate_server.documents.formats import detect_format, extract
from translate_server.documents.formats.base import FormatOptions, SegmentReview
from translate_server.documents.formats.l10n import icu, plurals
from translate_server.documents.formats.l10n.slots import SlotsExtracted

FIXTURES = Path(__file__).parents[2] / "fixtures" / "l10n"
ALL = sorted(p.name for p in FIXTURES.iterdir() if p.name != "README.md")


def read(name: str, target: str = "pl", retranslate: bool = False) -> SlotsExtracted:
    data = (FIXTURES / name).read_bytes()
    found = extract(
        detect_format(name, data), data, FormatOptions(target_lang=target, retranslate=retranslate)
    )
    assert isinstance(found, SlotsExtracted)
    return found


def marked(extracted: SlotsExtracted) -> list[str]:
    return [f"T{i} {source.upper()}" for i, source in enumerate(extracted.segments)]


def text_of(name: str, data: bytes) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("iso-8859-1")


def cldr(language: str) -> list[str]:
    tags = Locale.parse(language).plural_form.tags | {"other"}
    return [c for c in ("zero", "one", "two", "few", "many", "other") if c in tags]


@pytest.mark.parametrize("name", ALL)
def test_nothing_outside_the_values_changes(name: str) -> None:
    """A byte diff of the file and its translation with the values masked: the same. The
    values masked are the slots' spans (a value, a plural group, the locale key), where each
    format's reader finds them (checked below, reading every value back)."""
    extracted = read(name)
    original = extracted.text
    out = text_of(name, extracted.rebuild(marked(extracted)))
    assert len(extracted.written) == len(extracted.slots) > 0
    assert mask(out, extracted.written) == mask(
        original, [(s.start, s.end) for s in extracted.slots]
    )
    assert out != original


def mask(text: str, spans: list[tuple[int, int]]) -> str:
    for start, end in reversed(spans):
        text = text[:start] + "\x00" + text[end:]
    return text


@pytest.mark.parametrize("name", ALL)
def test_the_same_language_untranslated_comes_back_byte_for_byte(name: str) -> None:
    """Each source given back as its own translation, into English: the very same bytes,
    where the file wrote its values as the format's writer does."""
    extracted = read(name, target="en")
    if name.endswith((".xcstrings", ".ts", ".csv")) or "latin1" in name or "markup" in name:
        pytest.skip("the file is bilingual, or writes values another way than the writer")
    data = (FIXTURES / name).read_bytes()
    out = extracted.rebuild(list(extracted.segments))
    if name.endswith(".yml"):  # the locale key is renamed to the target's
        out = out.replace(b"en:", b'"en":', 1) if data.startswith(b'"en"') else out
    assert out == data


def _android_values(data: bytes) -> dict[str, list[str]]:
    from translate.storage import aresource

    store = aresource.AndroidResourceFile.parsestring(data)
    return {
        unit.getid(): [str(t) for t in getattr(unit.target, "strings", [unit.target])]
        for unit in store.units
    }


def test_android_reads_back_with_plurals_placeholders_and_untranslatables() -> None:
    extracted = read("sunflower_strings.xml", "pl")
    assert "Sunflower" not in extracted.segments  # translatable="false"
    translations = marked(extracted)
    out = extracted.rebuild(translations)
    etree.fromstring(out)
    assert b'<string name="app_name" translatable="false">Sunflower</string>' in out
    quantities = re.findall(rb'<plurals name="watering_next">(.*?)</plurals>', out, re.DOTALL)[0]
    assert re.findall(rb'quantity="(\w+)"', quantities) == [c.encode() for c in cldr("pl")]
    values = _android_values(out)
    assert values["share_text_plant"][0].startswith("T")
    # A placeholder the translator changed is put back as it was.
    changed = [t.replace("%1$s", "%1$d").replace("%2$s", "%2$d") for t in extracted.segments]
    out = extracted.rebuild(changed)
    assert b"Check out the %1$s plant in the Android Sunflower app \\n%2$s" in out


def test_android_markup_escapes_and_references() -> None:
    extracted = read("handmade_markup_strings.xml", "de")
    assert "@string/app_name" not in extracted.segments
    assert "Don't  panic" in extracted.segments
    assert 'It\'s 100% "real"\nNew line & more' in extracted.segments
    assert "%1$s" not in " ".join(extracted.segments)  # inside <xliff:g>: kept
    out = extracted.rebuild(['L\'été "chaud" & <b>' for _ in extracted.segments])
    etree.fromstring(out)
    assert b'<xliff:g id="user" example="Bob">%1$s</xliff:g>' in out
    assert b'L\\\'\xc3\xa9t\xc3\xa9 \\"chaud\\" &amp; &lt;b&gt;' in out


@pytest.mark.parametrize("language", ["pl", "ru", "ar", "ja", "fr"])
def test_plural_groups_get_the_cldr_categories_of_the_target(language: str) -> None:
    expected = cldr(language)
    assert list(plurals.categories(language)) == expected
    # i18next suffixes and ICU plurals in JSON
    extracted = read("handmade_i18next.json", language)
    out = json.loads(extracted.rebuild(marked(extracted)))
    assert [k.split("_")[1] for k in out["inbox"] if k.startswith("message_")] == expected
    choice = next(n for n in icu.parse(out["icu"]) if isinstance(n, icu.Choice))
    assert [b.selector for b in choice.branches] == ["=0", *expected]
    # Android <plurals>
    extracted = read("sunflower_strings.xml", language)
    out_xml = etree.fromstring(extracted.rebuild(marked(extracted)))
    items = out_xml.find("plurals").findall("item")
    assert [item.get("quantity") for item in items] == expected
    # .stringsdict
    extracted = read("wikipedia_ios_Localizable.stringsdict", language)
    rules = plistlib.loads(extracted.rebuild(marked(extracted)))
    forms = rules["places-filter-top-articles-count"]["v0"]
    assert [k for k in forms if not k.startswith("NS")] == expected
    # string catalogs
    extracted = read("handmade_Localizable.xcstrings", language)
    catalog = json.loads(extracted.rebuild(marked(extracted)))
    plural = catalog["strings"]["%lld items"]["localizations"][language]["variations"]["plural"]
    assert list(plural) == expected
    # Rails YAML
    extracted = read("rails_actionview_en.yml", language)
    data = yaml.safe_load(extracted.rebuild(marked(extracted)))
    assert list(data) == [language]
    assert list(data[language]["datetime"]["distance_in_words"]["x_days"]) == expected


def test_each_form_is_told_its_category_and_a_sample_number() -> None:
    extracted = read("rails_actionview_en.yml", "pl")
    told = [c for c in extracted.contexts if c and "`few`" in c]
    assert told and "few: 2" in told[0]
    assert plurals.sample("ar", "few") == "3" and plurals.sample("fr", "many") == "1000000"
    assert plurals.sample("ja", "other") == "1"


def test_icu_select_and_nested_arguments_keep_their_structure() -> None:
    value = "{n, plural, one {{g, select, f {her # file} other {their # file}}} other {# files}}"
    parts = icu.parts(value, "ru")
    out = parts.assemble([f"<{s}>" for s in parts.sources])
    parsed = icu.parse(out)
    choice = next(node for node in parsed if isinstance(node, icu.Choice))
    assert [b.selector for b in choice.branches] == cldr("ru")
    assert isinstance(choice.branches[0].message[0], icu.Choice)
    broken = parts.assemble(["{oops} '}" for _ in parts.sources])
    icu.parse(broken)  # braces the translation added are quoted


def test_arb_keeps_metadata_and_tells_the_description() -> None:
    extracted = read("flutter_material_en.arb", "de")
    assert "English-like" in extracted.segments  # a value; its @-metadata is not
    assert all("tooltip" not in s for s in extracted.segments)
    index = extracted.segments.index("Back")
    assert "closes the current page" in (extracted.contexts[index] or "")
    translations = [s.replace("$applicationName", "$ApplicationName") for s in extracted.segments]
    out = json.loads(extracted.rebuild(translations))
    assert out["aboutListTileTitle"] == "About $applicationName"  # placeholder put back
    assert out["@aboutListTileTitle"]["parameters"] == "applicationName"


def test_string_catalog_states_follow_the_review_and_its_translations_are_memory() -> None:
    extracted = read("handmade_Localizable.xcstrings", "de")
    assert ("Save", "Sichern") in extracted.known
    assert "Acme" not in extracted.segments and "Save" not in extracted.segments
    reviews = [
        SegmentReview(0.2 if i == 0 else 0.9, i == 0) for i in range(len(extracted.segments))
    ]
    out = json.loads(extracted.rebuild_reviewed(marked(extracted), reviews))
    strings = out["strings"]
    plural = strings["%lld items"]["localizations"]["de"]["variations"]["plural"]
    assert plural["one"]["stringUnit"]["state"] == "needs_review"
    assert strings["Settings"]["localizations"]["de"]["stringUnit"]["state"] == "translated"
    assert "localizations" not in strings["Acme"]
    hello = strings["Hello, %@!"]
    assert hello["comment"] == "Greeting with the user's name"
    assert hello["localizations"]["de"]["stringUnit"]["value"].endswith("HELLO, %@!")


def test_properties_escapes_and_latin1() -> None:
    extracted = read("handmade_latin1.properties", "ru")
    assert extracted.segments == [
        "Your cart",
        "{0} items in your cart",
        "This value goes on over two lines",
        "Tab\there and café",
        "Grüße",
    ]
    assert (
        extracted.contexts[0]
        == "Comment: Shop messages (ISO-8859-1, as Java wrote them before 9) a bang comment"
    )
    out = extracted.rebuild(["Корзина {0}\t" for _ in extracted.segments])
    out.decode("ascii")  # written as ISO-8859-1 with \uXXXX escapes
    store = properties.javafile.parsestring(out)
    values = {u.name: u.source for u in store.units if u.name}
    assert values["cart.title"] == "Корзина {0}\t"


def test_qt_marks_only_what_needs_review_and_sets_the_language() -> None:
    extracted = read("qt_linguist_fr.ts", "pl")
    assert "" not in extracted.segments
    reviews = [SegmentReview(0.9, i % 2 == 0) for i in range(len(extracted.segments))]
    out = extracted.rebuild_reviewed(marked(extracted), reviews)
    assert b'<TS version="2.0">' in out  # no language attribute: none added
    store = ts2.tsfile.parsestring(out)
    units = [u for u in store.units if str(u.source)]
    assert [u.isfuzzy() for u in units][:3] == [True, False, True]
    numerus = next(u for u in units if "Batch translated" in str(u.source))
    assert len(numerus.target.strings) == 3  # Polish, as Qt counts its forms


def test_bilingual_csv_fills_the_target_column_from_the_source() -> None:
    assert read("godot_text.csv", "es").segments == []  # every Spanish cell filled: memory
    assert ("Hello!", "Hola!") in read("godot_text.csv", "es").known
    extracted = read("godot_text.csv", "de")
    assert extracted.segments == ["Hello!", "Push Me!"]  # no German column: in place
    out = extracted.rebuild(['Hallo, "Welt"!', "Drück mich!"]).decode()
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[1] == ["KEY_HELLO", 'Hallo, "Welt"!', "Hola!", "こんにちは"]


def test_resx_strings_and_apple_strings_read_back() -> None:
    extracted = read("aspnetcore_SharedValidationMessages.resx", "de")
    out = extracted.rebuild(["{0} <ok> & {1}" for _ in extracted.segments])
    store = resx.RESXFile.parsestring(out)
    assert {u.target or u.source for u in store.units if u.getid() == "Page.Title"} == {
        "{0} <ok> & {1}"
    }
    extracted = read("handmade_utf16.strings", "de")
    assert (
        extracted.contexts[0] == "Comment: Title of the main window"
        and extracted.contexts[1] is None
    )
    out = extracted.rebuild(['Sag "hi"\n' for _ in extracted.segments])
    assert out.startswith(b"\xff\xfe")
    store = properties.stringsfile.parsestring(out)
    assert {str(u.target or u.source) for u in store.units} == {'Sag "hi"\n'}


def test_a_target_in_capitals_is_written_as_locale_files_write_it() -> None:
    """DeepL's clients send `PT-BR`: the catalog's key, the YAML's and Qt's language are
    `pt-BR`/`pt_BR`, with Portuguese plurals."""
    extracted = read("handmade_Localizable.xcstrings", "PT-BR")
    strings = json.loads(extracted.rebuild(marked(extracted)))["strings"]
    assert "pt-BR" in strings["Settings"]["localizations"]
    extracted = read("rails_actionview_en.yml", "PT-BR")
    assert list(yaml.safe_load(extracted.rebuild(marked(extracted)))) == ["pt-BR"]
    assert plurals.locale_tag("zh_hant", "_") == "zh_Hant"
