"""`neighbours=true`: each segment of a document is translated with the segments around it as
its context (bounded), never translating them; without it, prompts are as they were."""

from __future__ import annotations

from translate_server.documents.translator import NEIGHBOUR_CHARS, neighbour_context

from tests.integration.documents.test_document_api import finished, submit
from tests.support.fakes import FakeEngine
from tests.support.harness import running

DOCUMENT = b"The bank was closed.\n\nWe sat on it.\n\nThe river was cold.\n"


async def test_each_segment_reads_its_neighbours_as_context(make_app, engine: FakeEngine) -> None:
    async with running(make_app()) as client:
        response = await submit(client, DOCUMENT, "story.txt", source_lang="en", neighbours="true")
        assert (await finished(client, response.json()))["status"] == "done"
        result = (await client.get(response.json()["result_url"])).text
        plain = await submit(client, DOCUMENT, "again.txt", source_lang="en")
        await finished(client, plain.json())
    assert result == "THE BANK WAS CLOSED.\n\nWE SAT ON IT.\n\nTHE RIVER WAS COLD.\n"
    prompts = [engine.decode(ids) for _, ids, _ in engine.requests]
    middle = next(p for p in prompts[:3] if "<source>\nWe sat on it." in p)
    assert "<context>\nThe bank was closed.\nThe river was cold.\n</context>" in middle
    # Without neighbours no prompt has a context.
    assert len(prompts) == 6 and not any("<context>" in p for p in prompts[3:])


def test_a_segments_context_is_its_nearest_neighbours_bounded() -> None:
    long = "x" * (NEIGHBOUR_CHARS + 50)
    texts = ["a" + long, "", "middle", " ", long + "b", "far"]
    context = neighbour_context(texts, 2)
    assert context == long[-NEIGHBOUR_CHARS:] + "\n" + long[:NEIGHBOUR_CHARS]
    assert neighbour_context(texts, 5) == (long + "b")[-NEIGHBOUR_CHARS:]
    assert neighbour_context(["alone"], 0) is None
