from __future__ import annotations

from prometheus_client import CollectorRegistry, generate_latest

from translate_server.translation.planning.cache import (
    CachedTranslation,
    CacheMetrics,
    TranslationCache,
)


def test_bounded_lru_with_hit_and_miss_counters() -> None:
    registry = CollectorRegistry()
    cache = TranslationCache(2, CacheMetrics(registry))
    cache.put("a", CachedTranslation("A", 1))
    cache.put("b", CachedTranslation("B", 1))
    assert cache.get("a") == CachedTranslation("A", 1)  # "a" is now the most recent
    cache.put("c", CachedTranslation("C", 1))  # evicts "b"
    assert cache.get("b") is None
    assert len(cache) == 2
    text = generate_latest(registry).decode()
    assert "translate_cache_hits_total 1.0" in text
    assert "translate_cache_misses_total 1.0" in text
    assert "translate_cache_entries 2.0" in text


def test_size_zero_disables_it() -> None:
    cache = TranslationCache(0, CacheMetrics(CollectorRegistry()))
    cache.put("a", CachedTranslation("A", 1))
    assert cache.get("a") is None and len(cache) == 0
