"""Finding a text's match in a memory: an exact match by its match key, else fuzzy candidates
from the memory's word index (the entries holding the text's rarest words, by their counts in
`memory_words`), scored by rapidfuzz. Plain tables and plain queries, the same on SQLite and
PostgreSQL, so both find the same matches (`memory.merging` keeps the index).
"""

from __future__ import annotations

from rapidfuzz import fuzz, process
from sqlalchemy import Connection, literal_column, select, union_all

from translate_server.memory.entries import Found, carry_spans, match_key
from translate_server.memory.words import index_words, key_digest
from translate_server.storage.memory_tables import memory_entries, memory_postings, memory_words

# Fuzzy matching. The candidates are the entries that hold the source's rarest words (by
# `memory_words`), taken word by word, rarest first, until there are `CANDIDATE_ROWS` of them
# or `MAX_TERMS` words were asked; rapidfuzz scores them all. A source within a threshold of
# 75 of its match shares most of its words with it, its rare ones among them. Ranking every
# entry that holds any word asked for instead costs a step per such entry: tens of ms on a
# memory of 100,000 entries (benchmarks/memory_lookup.py).
CANDIDATE_ROWS = 300
MAX_TERMS = 6
EXAMPLES = 3

Scope = tuple[int, str, str]  # the memory's row id, the source and target language keys


def best_match(c: Connection, scope: Scope, text: str, threshold: float) -> Found | None:
    """`text`'s exact match in the memory, else its fuzzy matches at or above `threshold`
    (0-100, rapidfuzz's `ratio` of the match keys)."""
    memory, source_key, target_key = scope
    key = match_key(text)
    entries = memory_entries.c
    exact = (
        c.execute(
            select(entries.source, entries.target)
            .where(
                entries.memory == memory,
                entries.source_key == source_key,
                entries.target_key == target_key,
                entries.key_digest == key_digest(key),
            )
            .limit(1)
        )
    ).first()
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


def _candidates(c: Connection, scope: Scope, key: str) -> list[tuple[str, str, str]]:
    """(key, source, target) of the entries of the memory and language pair that hold the
    key's rarest words, in entry order."""
    memory, source_key, target_key = scope
    asked = index_words(key)
    if not asked:
        return []
    counts = c.execute(
        select(memory_words.c.word, memory_words.c.entries).where(
            memory_words.c.memory == memory, memory_words.c.word.in_(sorted(asked))
        )
    )
    rarest = [word for _, word in sorted((n, word) for word, n in counts)[:MAX_TERMS]]
    if not rarest:
        return []
    ids = _holding(c, memory, rarest)
    if not ids:
        return []
    entries = memory_entries.c
    rows = c.execute(
        select(entries.key, entries.source, entries.target)
        .where(
            entries.id.in_(sorted(ids)),
            entries.source_key == source_key,
            entries.target_key == target_key,
        )
        .order_by(entries.id)
    )
    return [(key, source, target) for key, source, target in rows]


def _holding(c: Connection, memory: int, words: list[str]) -> set[int]:
    """The entries holding `words`, word by word (rarest first) until there are
    CANDIDATE_ROWS: each word's first entries, all words in one statement."""
    postings = memory_postings.c
    firsts = [
        select(literal_column(str(rank)).label("rank"), postings.entry)
        .where(postings.memory == memory, postings.word == word)
        .order_by(postings.entry)
        .limit(CANDIDATE_ROWS)
        .subquery()
        for rank, word in enumerate(words)
    ]
    listed = c.execute(union_all(*(select(f.c.rank, f.c.entry) for f in firsts)))
    by_word: list[list[int]] = [[] for _ in words]
    for rank, entry in listed:
        by_word[rank].append(entry)
    ids: set[int] = set()
    for entries in by_word:
        if len(ids) >= CANDIDATE_ROWS:
            break
        ids.update(entries[: CANDIDATE_ROWS - len(ids)])
    return ids
