from benchmarks.adapt_quality import match_counts, memory_csv
from translate_server.memory.entries import Entry
from translate_server.memory.formats import read_entries


def test_the_training_pairs_import_as_the_memory_reads_them() -> None:
    pairs = [
        Entry("Save, then close", "Speichern, dann schließen", "en", "de"),
        Entry("Greek", "Griechisch", "en", "de"),
    ]
    read = read_entries(memory_csv(pairs, "en", "de"), "train.csv", None, None)
    assert [(e.source, e.target, e.source_lang, e.target_lang) for e in read] == [
        (e.source, e.target, "en", "de") for e in pairs
    ]


def test_matches_are_counted_by_their_kind() -> None:
    matches = [
        None,
        {"match": "exact", "score": 100.0},
        {"match": "fuzzy", "score": 80.0},
        {"match": "fuzzy"},
    ]
    assert match_counts(matches) == (1, 2)
