"""The paragraph and document sets: the criteria on made-up catalog entries, then the sets
drawn from Gramps' catalogs (skipped where the `quality` extra is not installed)."""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass

import pytest

from translate_server.quality import paragraphs as P

THREE = (
    "Your oldest relatives can be your most important source of information. They "
    "usually know things about the family that haven't been written down. At the very "
    "least, you will get to hear some great stories, e.g. about the war and the farm where "
    "they grew up."
)


@dataclass
class Entry:  # the fields of a polib entry that the extraction reads
    msgid: str
    msgstr: str
    msgctxt: str | None = None
    msgid_plural: str = ""
    obsolete: bool = False
    fuzzy: bool = False


def test_markup_becomes_plain_text() -> None:
    assert (
        P.plain_text("<b>Talk to Relatives</b><br/>Your   oldest\nrelatives.")
        == "Talk to Relatives\nYour oldest\nrelatives."
    )
    assert P.plain_text("One.<br><br><br/><i>Two</i>.") == "One.\n\nTwo."


def test_sentences_are_counted_by_their_ends_not_abbreviations_or_titles() -> None:
    assert P.count_sentences(THREE) == 3
    assert P.count_sentences("Talk to Relatives\nThey know. Ask them!") == 2
    assert P.count_sentences('Go to "Edit > Merge...". Then choose (the second).') == 2
    assert P.count_sentences("Version 1.2.0 is out") == 0


def test_a_paragraph_is_long_enough_prose_without_placeholders_or_markup() -> None:
    assert P.is_paragraph(THREE)
    assert len(THREE) >= P.MIN_CHARS
    assert not P.is_paragraph(THREE[:240])  # under MIN_CHARS
    assert not P.is_paragraph(THREE.replace(".", ",").replace("ritten down,", "ritten down."))
    assert not P.is_paragraph(THREE + " Open %(name)s to see more.")
    assert not P.is_paragraph(THREE + ' See <a href="x">here</a>.')
    assert not P.is_paragraph((THREE + " ") * 6)  # over MAX_CHARS


def _translations(factor: dict[str, float]) -> dict[str, str]:
    return {tag: "w" * int(len(THREE) * factor.get(tag, 1.0)) for tag in P.LOCALES}


def test_collect_keeps_usable_entries_translated_in_every_language() -> None:
    other = THREE.replace("oldest", "eldest")
    third = THREE.replace("oldest", "older")
    catalogs = {
        tag: [
            Entry(THREE, text),
            Entry(other, text),
            Entry(THREE.replace("oldest", "old"), text, fuzzy=True),
            Entry(THREE.replace("oldest", "first"), text, msgctxt="tip"),
            Entry("Short.", "Kurz."),
        ]
        for tag, text in _translations({}).items()
    }
    catalogs["ja"] = catalogs["ja"][:1]  # the second entry is not translated into Japanese
    catalogs["de"].append(Entry(third, "x"))
    found = P.collect(catalogs)
    assert [p.english for p in found] == [THREE]
    assert found[0].id.startswith("gramps.mo#") and set(found[0].translations) == set(P.LOCALES)


def test_implausible_translation_lengths_are_left_out() -> None:
    def paragraph(n: int, factor: dict[str, float]) -> P.Paragraph:
        return P.Paragraph(f"p#{n}", THREE, _translations(factor))

    kept = P.plausible(
        [paragraph(1, {}), paragraph(2, {}), paragraph(3, {"zh": 1.7}), paragraph(4, {"de": 0.5})]
    )
    assert [p.id for p in kept] == ["p#1", "p#2"]


def test_documents_are_paragraphs_in_a_row_never_used_twice() -> None:
    order = [P.Paragraph(f"p#{n}", "e" * 600, {}) for n in range(9)]
    documents = P.draw_documents(order, 2)
    assert [[p.id for p in d] for d in documents] == [
        ["p#0", "p#1", "p#2", "p#3"],
        ["p#4", "p#5", "p#6", "p#7"],
    ]
    with pytest.raises(ValueError, match="enough for 2 documents; asked for 3"):
        P.draw_documents(order, 3)


installed = pytest.mark.skipif(
    not P.installed(), reason="gramps (the `quality` extra) is not installed"
)


@installed
def test_the_catalogs_hold_29_paragraphs_and_4_documents() -> None:
    assert P.available() == {"paragraphs": 29, "documents": 4}
    for paragraph in P.paragraphs():
        assert P.is_paragraph(paragraph.english)
        assert all(text.strip() and "<" not in text for text in paragraph.translations.values())
    # The stricter bounds hold for a third of them (docs/quality.md).
    strict = [
        p for p in P.paragraphs() if P.count_sentences(p.english) >= 3 and len(p.english) >= 350
    ]
    assert len(strict) == 9


@installed
def test_paragraph_sets_are_parallel_and_fixed_by_the_seed() -> None:
    sets = P.load_paragraph_sets(P.DEFAULT_PAIRS, 12, seed=0)
    assert [s.pair for s in sets] == ["en-de", "en-fr", "en-es", "en-ja", "en-zh"]
    ids = [segment.id for segment in sets[0].segments]
    assert len(set(ids)) == 12 and all(s.name == "paragraph" for s in sets)
    for test_set in sets:
        assert [segment.id for segment in test_set.segments] == ids
    assert sets[4].segments[0].target_lang == "zh-Hans"
    assert any("\u4e00" <= c <= "\u9fff" for s in sets[4].segments for c in s.reference)
    assert any("\u3040" <= c <= "\u30ff" for s in sets[3].segments for c in s.reference)
    assert [s.id for s in P.load_paragraph_sets(["en-de"], 12, seed=1)[0].segments] != ids
    de_en = P.load_paragraph_sets(["de-en"], 12, seed=0)[0]
    assert [(s.source, s.reference) for s in de_en.segments] == [
        (s.reference, s.source) for s in sets[0].segments
    ]


@installed
def test_documents_do_not_repeat_the_paragraph_sets_paragraphs() -> None:
    (paragraph_set,) = P.load_paragraph_sets(["en-ja"], 12, seed=0)
    (document_set,) = P.load_document_sets(["en-ja"], 2, seed=0, paragraphs_first=12)
    used = {s.id.split("#")[1] for s in paragraph_set.segments}
    for document in document_set.segments:
        parts = document.id.split(":")[1].split("+")
        assert len(parts) >= P.DOCUMENT_MIN_PARAGRAPHS and not used & set(parts)
        assert P.DOCUMENT_MIN_CHARS <= len(document.source) <= 6000
        assert document.source.count(P.PARAGRAPH_BREAK) >= len(parts) - 1
        assert document.reference.count(P.PARAGRAPH_BREAK) >= len(parts) - 1


@installed
def test_provenance_names_the_installed_package_its_licence_and_catalog() -> None:
    (test_set,) = P.load_document_sets(["en-zh"], 1)
    provenance = test_set.provenance
    assert (provenance.package, provenance.license) == ("gramps", "GPL-2.0-or-later")
    assert provenance.version == importlib.metadata.version("gramps") == "6.0.8"
    assert provenance.catalogs == ["share/locale/zh_CN/LC_MESSAGES/gramps.mo"]
    assert P.catalog_path("zh_CN") is not None
    assert "documents" in provenance.note


@pytest.mark.parametrize("pair", ["en-it", "de-fr", "en"])
def test_pairs_without_a_catalog_are_refused(pair: str) -> None:
    with pytest.raises(ValueError):
        P.load_paragraph_sets([pair], 1)
