"""Finding a text's match in a memory: an exact match by its match key, else fuzzy
candidates from the memory's full-text index (the entries holding the text's rarest words,
by their counts in `memory_words`), scored by rapidfuzz. The store (`memory.store`) keeps the
index and the counts as entries come in, and calls `best_match` on its reader's thread.
"""

from __future__ import annotations

import re
import sqlite3

from rapidfuzz import fuzz, process

from translate_server.memory.entries import Found, carry_spans, match_key

# Each memory's full-text index of its entries' match keys (rowid: the entry's), made with the
# memory and dropped with it: one index per memory keeps a lookup from wading through the
# entries of every other memory. Contentless: the keys are in memory_entries already.
_INDEX = "memory_index_{}"
_INDEX_SCHEMA = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS {} USING fts5(key, content = '', "
    "tokenize = 'unicode61 remove_diacritics 2')"
)

# Fuzzy matching. The candidates are the entries that hold the source's rarest words (by
# `memory_words`), taken word by word, rarest first, until there are `CANDIDATE_ROWS` of them
# or `MAX_TERMS` words were asked; rapidfuzz scores them all. A source within a threshold of
# 75 of its match shares most of its words with it, its rare ones among them. Ranking by
# bm25 inside SQLite instead costs a step per row holding any word asked for: tens of ms on
# a memory of 100,000 entries (benchmarks/memory_lookup.py).
CANDIDATE_ROWS = 300
MAX_TERMS = 6
EXAMPLES = 3
_WORD = re.compile(r"\w+")


def index_table(memory: int) -> str:
    """The name of a memory's full-text index (the memory's row id is an integer)."""
    return _INDEX.format(memory)


def create_index(memory: int) -> str:
    """The statement that makes a memory's full-text index where it is missing."""
    return _INDEX_SCHEMA.format(index_table(memory))


def best_match(
    c: sqlite3.Connection, scope: tuple[int, str, str], text: str, threshold: float
) -> Found | None:
    """`text`'s exact match in the memory, else its fuzzy matches at or above `threshold`
    (0-100, rapidfuzz's `ratio` of the match keys)."""
    key = match_key(text)
    exact = c.execute(
        "SELECT source, target FROM memory_entries WHERE memory = ? AND "
        "source_key = ? AND target_key = ? AND key = ?",
        (*scope, key),
    ).fetchone()
    if exact is not None:
        return Found(carry_spans(exact[0], exact[1], text), 100.0)
    candidates = _candidates(c, scope, key)
    if not candidates:
        return None
    scored = process.extract(
        key,
        [row[0] for row in candidates],
        scorer=fuzz.ratio,
        score_cutoff=threshold,
        limit=EXAMPLES,
    )
    if not scored:
        return None
    examples = tuple((candidates[i][1], candidates[i][2]) for _, _, i in reversed(scored))
    return Found(None, round(scored[0][1], 1), examples)


def _candidates(
    c: sqlite3.Connection, scope: tuple[int, str, str], key: str
) -> list[tuple[str, str, str]]:
    """(key, source, target) of the entries of the memory and language pair that hold the
    key's rarest words."""
    memory, source_key, target_key = scope
    asked = list(index_words(key))
    if not asked:
        return []
    marks = ", ".join("?" * len(asked))
    counts = sorted(
        (n, word)
        for word, n in c.execute(
            f"SELECT word, entries FROM memory_words WHERE memory = ? AND word IN ({marks})",
            (memory, *asked),
        )
    )
    index, ids = index_table(memory), set[int]()
    for _, word in counts[:MAX_TERMS]:
        if len(ids) >= CANDIDATE_ROWS:
            break
        phrase = '"' + word.replace('"', '""') + '"'
        ids.update(
            rowid
            for (rowid,) in c.execute(
                f"SELECT rowid FROM {index} WHERE {index} MATCH ? LIMIT ?",
                (phrase, CANDIDATE_ROWS - len(ids)),
            )
        )
    if not ids:
        return []
    marks = ", ".join("?" * len(ids))
    return c.execute(
        f"SELECT key, source, target FROM memory_entries WHERE id IN ({marks}) "
        "AND source_key = ? AND target_key = ?",
        (*ids, source_key, target_key),
    ).fetchall()


def index_words(key: str) -> set[str]:
    """The words the index holds of a key, as its tokenizer folds them (near enough: the
    index also drops diacritics; a word that differs only in them is merely not counted)."""
    return {w.lower() for w in _WORD.findall(key) if not w.isdigit()}
