from __future__ import annotations

from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient

PAGE = (
    '<div class="card"><h2 title="Greeting">Good morning</h2>\n'
    '<p>Click <a href="/go?a=1&amp;b=2">here</a> to continue.<br/>Thanks &amp; bye</p>'
    '<code>print("hi")</code><p translate="no">ACME Widget</p></div>'
)


async def test_html_text_nodes_are_translated_and_markup_kept(
    client: AppClient, engine: FakeEngine
) -> None:
    response = await client.post(
        "/translate",
        json={"text": PAGE, "source_lang": "en", "target_lang": "de", "format": "html"},
    )
    assert response.status_code == 200, response.text
    assert response.json()["translation"] == (
        '<div class="card"><h2 title="Greeting">GOOD MORNING</h2>\n'
        '<p>CLICK <a href="/go?a=1&amp;b=2">HERE</a> TO CONTINUE.<br/>THANKS &amp; BYE</p>'
        '<code>print("hi")</code><p translate="no">ACME Widget</p></div>'
    )
    sources = sorted(
        engine.decode(ids).split("<source>\n")[-1].split("\n</source>")[0]
        for _, ids, _ in engine.requests
    )
    assert sources == ["Click", "Good morning", "Thanks & bye", "here", "to continue."]


async def test_html_detects_on_the_text_not_the_tags(client: AppClient) -> None:
    body = (
        await client.post(
            "/translate",
            json={
                "text": "<p class='x'>Die Besprechung <b>wurde</b> auf Donnerstag verschoben.</p>",
                "target_lang": "en",
                "format": "html",
            },
        )
    ).json()
    assert body["source_lang"] == "de"


async def test_markup_without_text_needs_no_engine(client: AppClient, engine: FakeEngine) -> None:
    body = (
        await client.post(
            "/translate",
            json={
                "text": "<img src=x.png><br>",
                "source_lang": "en",
                "target_lang": "de",
                "format": "html",
            },
        )
    ).json()
    assert body["translation"] == "<img src=x.png><br>"
    assert engine.requests == []


async def test_html_streams(client: AppClient) -> None:
    async with client.stream(
        "POST",
        "/translate",
        json={
            "text": "<p>Hi <b>there</b></p>",
            "source_lang": "en",
            "target_lang": "de",
            "format": "html",
            "stream": True,
        },
    ) as response:
        text = "".join([line async for line in response.aiter_lines()])
    assert "<p>" in text and "THERE" in text and "[DONE]" in text
