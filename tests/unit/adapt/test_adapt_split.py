"""The held-out pairs `adapt` scores on are never trained on."""

from __future__ import annotations

import pytest

from translate_server.adapt.data import pairs_served, split
from translate_server.memory.entries import Entry


def entry(source: str, target: str, pair: tuple[str, str] = ("en", "de")) -> Entry:
    return Entry(source, target, *pair)


def test_the_held_out_share_is_kept_out_of_training_even_by_its_sources():
    entries = [entry(f"s{i % 30}", f"t{i}") for i in range(60)]  # each source twice
    train, held = split(entries, 0.1, seed=3)
    assert len(held) == 6
    assert not {e.source for e in held} & {e.source for e in train}
    assert len(train) + len(held) < 60  # held sources' other translations left out


def test_the_split_is_the_same_for_the_same_seed_and_drops_duplicates():
    entries = [entry(f"s{i}", f"t{i}") for i in range(20)] * 2
    train, held = split(entries, 0.25, seed=1)
    assert len(train) + len(held) == 20
    assert split(entries, 0.25, seed=1) == (train, held)
    assert split(entries, 0.25, seed=2) != (train, held)


def test_too_few_pairs_are_refused():
    with pytest.raises(ValueError, match="at least two"):
        split([entry("a", "b")], 0.1, seed=0)


def test_the_adapter_serves_the_pairs_it_learnt():
    entries = [entry("a", "b", ("en-US", "de-CH")), entry("c", "d", ("en", "fr"))]
    assert pairs_served(entries) == ["en-de", "en-fr"]
