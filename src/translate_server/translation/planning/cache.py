"""A bounded LRU cache of finished translations, with hit and miss counters.

Entries are per engine request (a text, or one piece of a long text or of an HTML document),
keyed by everything that shapes the prompt and the sampling: model, languages, glossary
entries in the prompt, formality, max_tokens and the text. Decoding is greedy, so the same key
always produces the same translation. Only translations that ended by themselves are kept;
one cut short by `max_tokens` is not.
"""

from __future__ import annotations

from collections.abc import Hashable

import msgspec
from cachetools import LRUCache
from prometheus_client import CollectorRegistry, Counter, Gauge

from translate_server.translation.estimate.signals import AnswerSignals


class CachedTranslation(msgspec.Struct, frozen=True):
    text: str
    completion_tokens: int
    # The answer's quality signals, and its estimate: a cached answer is estimated as it was
    # when made, and one under a request's `min_quality` is made again.
    signals: tuple[AnswerSignals, ...] = ()
    estimate: float | None = None


class CacheMetrics:
    """The cache's collectors (the translation domain's registration declares them)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.hits = Counter(
            "translate_cache_hits", "Translations answered from the cache.", registry=registry
        )
        self.misses = Counter(
            "translate_cache_misses",
            "Translations looked up in the cache and not found.",
            registry=registry,
        )
        self.size = Gauge(
            "translate_cache_entries",
            "Translations held in the cache.",
            registry=registry,
            multiprocess_mode="livesum",  # one cache per front-end process
        )


class TranslationCache:
    def __init__(self, max_entries: int, metrics: CacheMetrics) -> None:
        self.max_entries = max_entries
        self._entries: LRUCache[Hashable, CachedTranslation] | None = (
            LRUCache(maxsize=max_entries) if max_entries > 0 else None
        )
        self.hits = metrics.hits
        self.misses = metrics.misses
        self.size = metrics.size

    @property
    def keeps(self) -> bool:
        """Whether it keeps anything (a size of 0 turns it off)."""
        return self._entries is not None

    def get(self, key: Hashable) -> CachedTranslation | None:
        if self._entries is None:
            return None
        found = self._entries.get(key)
        (self.hits if found is not None else self.misses).inc()
        return found

    def put(self, key: Hashable, value: CachedTranslation) -> None:
        if self._entries is None:
            return
        self._entries[key] = value
        self.size.set(len(self._entries))

    def __len__(self) -> int:
        return 0 if self._entries is None else len(self._entries)
