"""The benchmark workloads: same seed, same texts; lengths within the promised range."""

from __future__ import annotations

import pytest

from translate_server.loadgen.corpus import LANGUAGE_PAIRS
from translate_server.loadgen.workload import (
    WorkloadSpec,
    estimate_tokens,
    length_summary,
    make_workload,
    starting_at,
    warmup_items,
)


def test_same_seed_same_texts_and_different_seed_different_texts() -> None:
    spec = WorkloadSpec(kind="variable", size=64, seed=7)
    assert make_workload(spec) == make_workload(spec)
    other = make_workload(WorkloadSpec(kind="variable", size=64, seed=8))
    assert [i.text for i in other] != [i.text for i in make_workload(spec)]


def test_prefix_stable_whatever_the_size() -> None:
    small = make_workload(WorkloadSpec(size=10, seed=3))
    large = make_workload(WorkloadSpec(size=100, seed=3))
    assert large[:10] == small


def test_runs_go_on_through_the_workload_and_warm_up_on_its_end() -> None:
    items = make_workload(WorkloadSpec(size=10, seed=3))
    assert starting_at(items, 0) == items
    assert starting_at(items, 7) == items[7:] + items[:7]
    assert starting_at(items, 23) == starting_at(items, 3)  # cycles
    assert starting_at([], 5) == []
    # A warm-up sends the texts that measured requests from the first one reach last.
    warm = warmup_items(items, 3)
    assert warm[:3] == items[7:]
    assert not {i.text for i in warm[:3]} & {i.text for i in items[:7]}


def test_variable_lengths_span_the_range() -> None:
    items = make_workload(WorkloadSpec(kind="variable", size=1000, seed=0))
    lengths = [i.input_tokens for i in items]
    assert min(lengths) >= 10 and max(lengths) <= 200
    # Spread across the range, not bunched at one end.
    assert min(lengths) < 30 and max(lengths) > 180
    assert 80 < sum(lengths) / len(lengths) < 125
    for item in items:
        assert item.input_tokens == estimate_tokens(item.text)
        assert item.text and not item.text.endswith(",")


def test_uniform_is_one_length_near_the_variable_mean() -> None:
    items = make_workload(WorkloadSpec(kind="uniform", size=50, seed=0))
    lengths = {i.input_tokens for i in items}
    assert len(lengths) == 1
    assert abs(lengths.pop() - 105) <= 2
    assert len({i.text for i in items}) > 10  # same length, different texts


def test_language_pairs_and_output_caps() -> None:
    items = make_workload(WorkloadSpec(size=300, seed=1, output_ratio=2.0, output_min=5))
    assert {(i.source_lang, i.target_lang) for i in items} == set(LANGUAGE_PAIRS)
    assert all(i.max_tokens == max(5, round(i.input_tokens * 2.0)) for i in items)
    fixed = make_workload(WorkloadSpec(size=5, fixed_output_tokens=32))
    assert {i.max_tokens for i in fixed} == {32}


def test_a_real_token_counter_trims_to_its_own_counts() -> None:
    def count_chars(text: str) -> int:  # any monotone counter works
        return len(text) // 4

    items = make_workload(WorkloadSpec(kind="uniform", size=20, uniform_tokens=50), count_chars)
    assert all(abs(i.input_tokens - 50) <= 4 for i in items)
    assert all(i.input_tokens == count_chars(i.text) for i in items)


def test_summary_and_validation() -> None:
    summary = length_summary(make_workload(WorkloadSpec(kind="uniform", size=4)))
    assert summary["n"] == 4 and summary["input_tokens_min"] == summary["input_tokens_max"]
    with pytest.raises(ValueError, match="unknown workload 'bursty'"):
        WorkloadSpec(kind="bursty")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="need 1 <= min_tokens <= max_tokens"):
        WorkloadSpec(min_tokens=50, max_tokens=10)
