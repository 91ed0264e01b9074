from __future__ import annotations

from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient, running

REQUEST = {"text": "Good morning", "source_lang": "en", "target_lang": "de"}


async def _metric(client: AppClient, name: str) -> float:
    text = (await client.get("/metrics")).text
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"{name} not exported")


async def test_a_repeated_translation_comes_from_the_cache(
    client: AppClient, engine: FakeEngine
) -> None:
    first = (await client.post("/translate", json=REQUEST)).json()
    second = (await client.post("/translate", json=REQUEST)).json()
    assert first["translation"] == second["translation"] == "GOOD MORNING"
    assert len(engine.requests) == 1
    assert second["usage"]["total_tokens"] == 0
    assert await _metric(client, "translate_cache_hits_total") == 1
    assert await _metric(client, "translate_cache_misses_total") == 1
    assert await _metric(client, "translate_cache_entries") == 1


async def test_options_and_languages_are_part_of_the_key(
    client: AppClient, engine: FakeEngine
) -> None:
    for variant in (
        {},
        {"target_lang": "fr"},
        {"formality": "formal"},
        {"glossary": {"morning": "Morgen"}},
        {"max_tokens": 50},
    ):
        await client.post("/translate", json={**REQUEST, **variant})
    assert len(engine.requests) == 5


async def test_repeated_pieces_and_list_items_are_translated_once(
    client: AppClient, engine: FakeEngine
) -> None:
    body = (
        await client.post(
            "/translate",
            json={"text": ["Hello", "Hello", "World"], "source_lang": "en", "target_lang": "de"},
        )
    ).json()
    assert body["translations"] == ["HELLO", "HELLO", "WORLD"]
    assert len(engine.requests) == 2


async def test_a_cut_translation_is_not_kept(client: AppClient, engine: FakeEngine) -> None:
    for _ in range(2):
        await client.post("/translate", json={**REQUEST, "max_tokens": 1})
    assert len(engine.requests) == 2


async def test_the_cache_can_be_turned_off(make_app, engine: FakeEngine) -> None:
    async with running(make_app(translation_cache_size=0)) as client:
        for _ in range(2):
            await client.post("/translate", json=REQUEST)
    assert len(engine.requests) == 2


async def test_the_cache_keeps_what_a_whole_answer_cleans_to_not_what_a_stream_sent(
    make_app,
) -> None:
    """A stream sends as it goes, and the end of an answer can show that what it sent was a
    fence tag; a later request that is not streamed must get what it would have computed."""
    engine = FakeEngine(responder=lambda prompt, options: "<text>\n<«")
    async with running(make_app(engine)) as client:
        streamed = await client.post("/translate", json={**REQUEST, "stream": True})
        assert streamed.status_code == 200
        cached = (await client.post("/translate", json=REQUEST)).json()
    async with running(make_app(FakeEngine(responder=lambda p, o: "<text>\n<«"))) as fresh:
        computed = (await fresh.post("/translate", json=REQUEST)).json()
    assert cached["translation"] == computed["translation"] == "<«"
    assert len(engine.requests) == 1  # the second answer did come from the cache
