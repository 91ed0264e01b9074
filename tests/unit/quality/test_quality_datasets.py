"""The test sets drawn from Django's gettext catalogs: counts, pairs, provenance, stability."""

from __future__ import annotations

import importlib.metadata
import importlib.resources
from collections import Counter

import pytest

from translate_server.quality.datasets import (
    DEFAULT_PAIRS,
    KINDS,
    available,
    load_sets,
    parse_pair,
)
from translate_server.text.placeholders import find_placeholders
from translate_server.translation.guard.checks import is_echo


@pytest.fixture(scope="module")
def sets():
    return {s.pair: s for s in load_sets(DEFAULT_PAIRS, 100, seed=0)}


def test_every_default_pair_has_100_segments_of_the_same_messages(sets) -> None:
    assert list(sets) == ["en-de", "en-fr", "en-es", "en-zh", "en-ja", "de-en", "fr-en"]
    ids = [segment.id for segment in sets["en-de"].segments]
    assert len(ids) == len(set(ids)) == 100
    for test_set in sets.values():
        assert [segment.id for segment in test_set.segments] == ids


def test_pairs_are_parallel_and_reversible(sets) -> None:
    for en_de, de_en in zip(sets["en-de"].segments, sets["de-en"].segments, strict=True):
        assert (de_en.source, de_en.reference) == (en_de.reference, en_de.source)
        assert (en_de.source_lang, en_de.target_lang, de_en.source_lang) == ("en", "de", "de")
    assert {s.target_lang for s in sets["en-zh"].segments} == {"zh-Hans"}
    assert any("\u4e00" <= c <= "\u9fff" for s in sets["en-zh"].segments for c in s.reference)
    assert any("\u3040" <= c <= "\u30ff" for s in sets["en-ja"].segments for c in s.reference)


def test_a_mix_of_short_strings_sentences_and_placeholders(sets) -> None:
    segments = sets["en-fr"].segments
    counts = Counter(segment.kind for segment in segments)
    assert set(counts) == set(KINDS) and min(counts.values()) >= 30
    assert sum(bool(find_placeholders(s.source)) for s in segments) == counts["placeholder"]
    assert any(len(s.source.split()) >= 10 for s in segments)
    assert any(len(s.source.split()) <= 2 for s in segments)
    kinds = {
        find_placeholders(s.source)[0].kind.value for s in segments if find_placeholders(s.source)
    }
    assert {"printf", "python"} <= kinds


def test_no_segment_is_empty_or_already_its_own_translation(sets) -> None:
    for test_set in sets.values():
        for segment in test_set.segments:
            assert segment.source.strip() and segment.reference.strip()
            assert not is_echo(segment.source, segment.reference)


def test_provenance_names_the_installed_package_its_licence_and_real_catalogs(sets) -> None:
    provenance = sets["en-ja"].provenance
    assert provenance.package == "Django"
    assert provenance.version == importlib.metadata.version("Django")
    assert provenance.license == "BSD-3-Clause"
    root = importlib.resources.files("django")
    assert "django/conf/locale/ja/LC_MESSAGES/django.po" in provenance.catalogs
    for path in provenance.catalogs:
        assert root.joinpath(*path.split("/")[1:]).is_file()
    assert all("/de/" in path for path in sets["de-en"].provenance.catalogs)


def test_the_seed_fixes_the_sample() -> None:
    def ids(seed: int) -> list[str]:
        return [s.id for s in load_sets(["en-de"], 50, seed)[0].segments]

    assert ids(3) == ids(3)
    assert ids(3) != ids(4)
    assert sum(available().values()) >= 600


@pytest.mark.parametrize("pair", ["en", "de-fr", "en-en", "en-xx", "de"])
def test_bad_pairs_are_refused(pair: str) -> None:
    with pytest.raises(ValueError, match=r"a pair is like|no catalog for"):
        parse_pair(pair)
