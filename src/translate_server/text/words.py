"""What the memory's word index holds of a match key (`memory.matching` looks candidates up
by them): its words, lower-cased, diacritics dropped, numbers left out, each cut to a length
an index entry holds; and the digest a key is indexed by (a key may be a whole paragraph).

Pure and small: the memory store's migrations build the index with these same functions."""

from __future__ import annotations

import hashlib
import re
import unicodedata

_WORD = re.compile(r"\w+")
# Longer words are cut: two that share their first 64 characters count as one.
MAX_WORD_CHARS = 64


def index_words(key: str) -> set[str]:
    words = {_folded(w)[:MAX_WORD_CHARS] for w in _WORD.findall(key) if not w.isdigit()}
    words.discard("")
    return words


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _folded(word: str) -> str:
    lowered = word.lower()
    if lowered.isascii():
        return lowered
    decomposed = unicodedata.normalize("NFKD", lowered)
    return "".join(c for c in decomposed if not unicodedata.combining(c))
