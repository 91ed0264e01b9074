"""`bench languages`: its sentences and how a measurement becomes a support level."""

from __future__ import annotations

import pytest

from translate_server.quality.language_support import _locales, level_of, sentences


def test_levels_need_the_right_language_and_for_supported_a_fair_chrf() -> None:
    assert level_of(1.0, 45.0) == "supported"
    assert level_of(1.0, 20.0) == "weak"  # in the language, but poor
    assert level_of(0.6, 50.0) == "weak"
    assert level_of(0.5, 50.0) == "unsupported"
    assert level_of(1.0, 5.0) == "unsupported"  # the right script, saying nothing


def test_sentences_are_full_sentences_with_their_human_translation() -> None:
    pytest.importorskip("django")
    locales = _locales()
    assert {"de", "hi", "sw", "zh-Hans"} <= set(locales) and "en" not in locales
    found = sentences(locales["de"], "de", 12, seed=0)
    assert len(found) == 12
    assert all(s.kind == "sentence" and s.target_lang == "de" and s.reference for s in found)
    assert found == sentences(locales["de"], "de", 12, seed=0)  # the same for a seed
