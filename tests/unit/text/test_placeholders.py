"""Placeholder finding: every kind, what is not one, and (property-based) that placeholders put
into any text are found exactly, in order, and missed exactly when a translation drops them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from translate_server.text.placeholders import (
    PlaceholderKind,
    find_placeholders,
    lost_placeholders,
    placeholder_keys,
    strip_placeholders,
)


@pytest.mark.parametrize(
    ("text", "kind", "found"),
    [
        ("Hello %s!", PlaceholderKind.PRINTF, "%s"),
        ("%1$s wrote", PlaceholderKind.PRINTF, "%1$s"),
        ("Total %.2f EUR", PlaceholderKind.PRINTF, "%.2f"),
        ("%d items", PlaceholderKind.PRINTF, "%d"),
        ("%-5d", PlaceholderKind.PRINTF, "%-5d"),
        ("%@ wrote", PlaceholderKind.PRINTF, "%@"),
        ("100%% sure", PlaceholderKind.PRINTF, "%%"),
        ("Hi %(name)s", PlaceholderKind.PYTHON, "%(name)s"),
        ("%(value)r is bad", PlaceholderKind.PYTHON, "%(value)r"),
        ("%(size).1f MB", PlaceholderKind.PYTHON, "%(size).1f"),
        ("Hi {name}", PlaceholderKind.BRACE, "{name}"),
        ("Page {0}", PlaceholderKind.BRACE, "{0}"),
        ("{} files", PlaceholderKind.BRACE, "{}"),
        ("{price:.2f} EUR", PlaceholderKind.BRACE, "{price:.2f}"),
        ("{user.name} said", PlaceholderKind.BRACE, "{user.name}"),
        ("Hello {{ name }}", PlaceholderKind.BRACE, "{{ name }}"),
        (
            "{count, plural, one {# file} other {# files}}",
            PlaceholderKind.ICU,
            "{count, plural, one {# file} other {# files}}",
        ),
        (
            "{gender, select, male {He} other {They}} came",
            PlaceholderKind.ICU,
            "{gender, select, male {He} other {They}}",
        ),
    ],
)
def test_finds_each_kind(text: str, kind: PlaceholderKind, found: str) -> None:
    placeholders = find_placeholders(text)
    assert [(p.kind, p.text) for p in placeholders] == [(kind, found)]
    assert text[placeholders[0].start : placeholders[0].end] == found


@pytest.mark.parametrize(
    "text",
    ["50 % de réduction", "100%", "a { b } c", "email@x.org", "{ not a name }", "%", "R&D 5%"],
)
def test_prose_is_not_a_placeholder(text: str) -> None:
    assert find_placeholders(text) == []


def test_icu_argument_compares_by_name_and_type_not_its_translated_text() -> None:
    source = "{count, plural, one {# file} other {# files}}"
    translated = "{count, plural, one {# Datei} other {# Dateien}}"
    assert placeholder_keys(source) == placeholder_keys(translated)
    assert lost_placeholders(source, "{n, plural, one {#} other {#}}") == ["{count, plural}"]


def test_lost_placeholders_counts_repeats_and_keeps_source_order() -> None:
    assert lost_placeholders("%s and %s, %(x)s {y}", "%s {y}") == ["%s", "%(x)s"]
    assert lost_placeholders("%(a)s %(b)s", "%(b)s %(a)s") == []  # reordering is fine
    assert lost_placeholders("%(name)s", "%(nom)s") == ["%(name)s"]  # translated: lost


def test_strip_placeholders_leaves_the_words() -> None:
    assert strip_placeholders("Hi %(name)s, page {0}").split() == ["Hi", ",", "page"]


# -- property-based --------------------------------------------------------------------------

PLACEHOLDERS = st.one_of(
    st.sampled_from(["%s", "%d", "%1$s", "%2$d", "%.2f", "%%", "%i", "%x"]),
    st.from_regex(r"%\([a-z_]{1,8}\)[sdrf]", fullmatch=True),
    st.from_regex(r"\{[a-z_][a-z0-9_]{0,7}\}", fullmatch=True),
    st.from_regex(r"\{[0-9]\}", fullmatch=True),
    st.builds(
        lambda name, kind: f"{{{name}, {kind}, one {{# x}} other {{# xs}}}}",
        st.from_regex(r"[a-z]{1,6}", fullmatch=True),
        st.sampled_from(["plural", "select", "selectordinal"]),
    ),
)
# Prose that cannot make a placeholder of its own: no %, braces, or word characters right
# after a placeholder that would extend it.
PROSE = st.text(
    st.characters(blacklist_characters="%{}", blacklist_categories=("Cs",)), max_size=12
).map(lambda s: f" {s} ")


@st.composite
def texts_with_placeholders(draw: st.DrawFn) -> tuple[str, list[str]]:
    placeholders = draw(st.lists(PLACEHOLDERS, max_size=6))
    parts = [draw(PROSE)]
    for placeholder in placeholders:
        parts += [placeholder, draw(PROSE)]
    return "".join(parts), placeholders


@settings(deadline=None)  # a shared CPU must not turn slowness into failure
@given(texts_with_placeholders())
def test_every_placeholder_in_any_text_is_found_once_in_order(case: tuple[str, list[str]]) -> None:
    text, placeholders = case
    assert [p.text for p in find_placeholders(text)] == placeholders


@settings(deadline=None)  # a shared CPU must not turn slowness into failure
@given(texts_with_placeholders(), st.data())
def test_a_dropped_placeholder_is_reported_lost_and_nothing_else(
    case: tuple[str, list[str]], data: st.DataObject
) -> None:
    text, placeholders = case
    assert lost_placeholders(text, text) == []
    if not placeholders:
        return
    dropped = data.draw(st.integers(0, len(placeholders) - 1))
    kept = placeholders[:dropped] + placeholders[dropped + 1 :]
    translation = " ... ".join(reversed(kept))  # another order, as a translation may have
    lost = find_placeholders(placeholders[dropped])[0].key
    assert lost_placeholders(text, translation) == [lost]
