"""`bench quality --sets localization`: every format's catalog goes through the translator
with its contexts and comes back scored: valid, placeholders and plurals per format."""

from __future__ import annotations

import asyncio

from translate_server.quality.localization import CASES, format_table, run_localization

_SEEN: list[tuple[str, str | None]] = []


async def engine_double(texts: list[str], contexts: list[str | None], target: str) -> list[str]:
    """As the engine double answers: each source upper-cased (placeholders with it)."""
    _SEEN.extend(zip(texts, contexts, strict=True))
    return [text.upper() for text in texts]


async def echo(texts: list[str], contexts: list[str | None], target: str) -> list[str]:
    return list(texts)


def test_every_format_is_scored_and_its_plurals_are_the_targets() -> None:
    scores = asyncio.run(run_localization(engine_double))
    by_format = {score.format: score for score in scores}
    assert set(by_format) == {
        "json", "arb", "android", "strings", "stringsdict", "xcstrings", "yaml",
        "properties", "resx", "ts", "csv",
    }  # fmt: skip
    assert all(score.valid for score in scores)
    for name in ("json", "arb", "android", "stringsdict", "xcstrings", "yaml"):
        assert by_format[name].plurals == 1.0, name
    # An upper-cased `{{NAME}}` is put back as the source's `{{name}}`; `%1$S` is no
    # placeholder any more, so nothing says where `%1$s` went: counted as lost.
    assert by_format["json"].placeholders == 1.0
    assert by_format["resx"].placeholders == 1.0
    assert by_format["android"].placeholders < 1.0
    assert any(context and "few: 2" in context for _, context in _SEEN)
    assert by_format["csv"].chrf is not None and by_format["csv"].chrf < 100
    assert "placeholders" in format_table(scores)


def test_a_translator_that_keeps_the_sources_keeps_every_placeholder() -> None:
    scores = asyncio.run(run_localization(echo, CASES))
    assert all(score.placeholders == 1.0 and score.valid for score in scores)
