"""Finding a text's match in a memory: an exact match by its match key, else fuzzy candidates
from the memory's word index (the entries holding the text's rarest words, by their counts in
`memory_words`), scored by rapidfuzz. Plain tables and plain queries, the same on SQLite and
PostgreSQL, so both find the same matches (`memory.merging` keeps the index).

Two statements for a fuzzy lookup (one for an exact match), each built once: the exact match
with the counts of the key's words, then the candidates themselves (each word's first
entries, joined to their rows), so a lookup is two round trips on PostgreSQL and builds no
query.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from rapidfuzz import fuzz, process
from sqlalchemy import Connection, Select, bindparam, literal_column, null, select, union_all

from translate_server.memory.entries import Found, carry_spans, match_key
from translate_server.storage.memory_tables import memory_entries, memory_postings, memory_words
from translate_server.text.words import index_words, key_digest

# Fuzzy matching. The candidates are the entries that hold the source's rarest words (by
# `memory_words`), taken word by word, rarest first, each word's entries in entry order,
# until `CANDIDATE_ROWS` were taken or `MAX_TERMS` words were asked; rapidfuzz scores them
# all. A source within a threshold of 75 of its match shares most of its words with it, its
# rare ones among them. Ranking every entry that holds any word asked for instead costs a step
# per such entry: tens of ms on a memory of 100,000 entries (benchmarks/memory_lookup.py).
CANDIDATE_ROWS = 300
MAX_TERMS = 6
EXAMPLES = 3

Scope = tuple[int, str, str]  # the memory's row id, the source and target language keys

_ENTRIES = memory_entries.c
# The exact match and the counts of the key's words, in one statement: rows of the exact match
# (kind 0: source, target) and of the words' counts (kind 1: word, count).
_EXACT = (
    select(_ENTRIES.source, _ENTRIES.target)
    .where(
        _ENTRIES.memory == bindparam("memory"),
        _ENTRIES.source_key == bindparam("source_key"),
        _ENTRIES.target_key == bindparam("target_key"),
        _ENTRIES.key_digest == bindparam("digest"),
    )
    .limit(1)
    .subquery()
)
_WORDS = memory_words.c
_FIRST = union_all(
    select(literal_column("0").label("kind"), _EXACT.c.source, _EXACT.c.target, null()),
    select(literal_column("1"), _WORDS.word, null(), _WORDS.entries).where(
        _WORDS.memory == bindparam("memory"),
        _WORDS.word.in_(bindparam("words", expanding=True)),
    ),
)


def best_match(c: Connection, scope: Scope, text: str, threshold: float) -> Found | None:
    """`text`'s exact match in the memory, else its fuzzy matches at or above `threshold`
    (0-100, rapidfuzz's `ratio` of the match keys)."""
    memory, source_key, target_key = scope
    key = match_key(text)
    pair = {"memory": memory, "source_key": source_key, "target_key": target_key}
    asked = sorted(index_words(key))
    counts: list[tuple[int, str]] = []
    for kind, first, second, count in c.execute(
        _FIRST, {**pair, "digest": key_digest(key), "words": asked}
    ).all():
        if kind == 0:
            return Found(carry_spans(first, second, text), 100.0)
        counts.append((count, first))
    candidates = _candidates(c, pair, counts)
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
    c: Connection, pair: dict[str, object], counts: list[tuple[int, str]]
) -> list[tuple[str, str, str]]:
    """(key, source, target) of the entries of the memory and language pair that hold the
    rarest of the key's words (`counts`: their entries in the memory), in entry order."""
    rarest = sorted(counts)[:MAX_TERMS]
    # Each word's share: its entries while fewer than CANDIDATE_ROWS were taken before it.
    limits, taken = {}, 0
    for n, word in rarest:
        if taken >= CANDIDATE_ROWS:
            break
        limits[word] = min(n, CANDIDATE_ROWS - taken)
        taken += limits[word]
    if not limits:
        return []
    values: dict[str, object] = {f"w{i}": word for i, word in enumerate(limits)}
    values |= {f"n{i}": n for i, n in enumerate(limits.values())}
    rows = c.execute(_holding(len(limits)), {**pair, **values}).all()  # fetchall: one call
    seen: dict[int, tuple[str, str, str]] = {}
    for entry, entry_key, source, target in rows:
        seen[entry] = (entry_key, source, target)
    return [seen[entry] for entry in sorted(seen)]


@cache
def _holding(words: int) -> Select[Any]:
    """The entries of the pair among each word's first entries (`w<i>`, up to `n<i>` of
    them), with their rows: one statement per number of words, built once."""
    postings = memory_postings.c
    firsts = [
        select(postings.entry)
        .where(postings.memory == bindparam("memory"), postings.word == bindparam(f"w{i}"))
        .order_by(postings.entry)
        .limit(bindparam(f"n{i}", literal_execute=False))
        .subquery()
        for i in range(words)
    ]
    held = union_all(
        *(select(f.c.entry, literal_column(str(i)).label("rank")) for i, f in enumerate(firsts))
    ).subquery()
    return (
        select(_ENTRIES.id, _ENTRIES.key, _ENTRIES.source, _ENTRIES.target)
        .join_from(held, memory_entries, _ENTRIES.id == held.c.entry)
        .where(
            _ENTRIES.source_key == bindparam("source_key"),
            _ENTRIES.target_key == bindparam("target_key"),
        )
    )
