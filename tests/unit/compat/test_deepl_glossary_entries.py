"""DeepL glossary entries in its two formats, and its tag lists."""

from __future__ import annotations

import pytest

from translate_server.compat.deepl.glossaries import entries_tsv, parse_entries
from translate_server.compat.deepl.protocol import tag_list
from translate_server.errors import InvalidRequestError, PayloadTooLargeError


def test_tsv_and_csv_entries() -> None:
    assert parse_entries("cat\tKatze\n\n dog \t Hund \n", "tsv") == {"cat": "Katze", "dog": "Hund"}
    assert parse_entries('cat,Katze,en,de\n"a, b","c ""d"""\n', "csv") == {
        "cat": "Katze",
        "a, b": 'c "d"',
    }
    assert entries_tsv({"cat": "Katze", "dog": "Hund"}) == "cat\tKatze\ndog\tHund"


@pytest.mark.parametrize(
    ("entries", "entries_format", "message"),
    [
        ("cat Katze", "tsv", "Entry 1 needs"),
        ("cat\tKatze\ncat\tMieze", "tsv", "duplicates"),
        ("\n\n", "tsv", "at least one"),
        ("cat\t", "tsv", "Entry 1 needs"),
        ("cat,Katze", "xlsx", "entries_format"),
        ('"cat\nand more",Katze', "csv", "single lines"),
        (f"{'t' * 1001}\tu", "tsv", "at most 1000 characters"),
    ],
)
def test_bad_entries_are_400(entries: str, entries_format: str, message: str) -> None:
    with pytest.raises(InvalidRequestError, match=message) as refused:
        parse_entries(entries, entries_format)
    assert refused.value.status_code == 400


def test_ten_thousand_entries_of_a_thousand_characters_are_taken_and_one_more_is_413() -> None:
    long = "x" * 990
    entries = "".join(f"{long}{i:05}\t{long}{i:05}\n" for i in range(10_000))
    assert len(parse_entries(entries, "tsv")) == 10_000
    with pytest.raises(PayloadTooLargeError, match="at most 10000 entries") as refused:
        parse_entries(entries + "one more\tnoch einer\n", "tsv")
    assert refused.value.status_code == 413


def test_tags_as_list_or_comma_separated() -> None:
    assert tag_list("a, b,,c") == ["a", "b", "c"]
    assert tag_list(["x", "y,z"]) == ["x", "y", "z"]
    assert tag_list(None) == []
