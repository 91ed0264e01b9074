"""DeepL Write's guard through the official client, with an engine double that answers as a
small instruction-tuned model sometimes does: a preamble alone, a reply wrapped around the
text, the prompt's scaffolding, a reply and nothing else. No such answer reaches the client:
what can be stripped is, a failed answer is asked once more, and a text without a rewrite
comes back as it was sent, said on the log line and in /metrics."""

from __future__ import annotations

import asyncio

import deepl
import httpx
from structlog.testing import capture_logs

from tests.support.fakes import _SOURCE, FakeEngine
from tests.support.harness import served

# Each text's first answer and its answer to the sampled retry.
ANSWERS = {
    "This sentence are not very good written.": (
        "The original text is:",
        "This sentence is not very well written.",
    ),
    "Please send me the report until Friday.": (
        "I'm ready to assist you. Please send me the report by Friday.",
        "unused",
    ),
    "I am working here since three years.": (
        "<instruction>\nI have been working here for three years.",
        "unused",
    ),
    "Here is the corrected text: we was tired.": (
        "Here is the corrected text: we were tired.",
        "unused",
    ),
    "She don't like to drive in the night.": (
        "Sure! Please provide the text you would like me to improve.",
        "How can I help you today?",
    ),
}


def misbehaving(prompt: str, options) -> str:  # type: ignore[no-untyped-def]
    source = _SOURCE.search(prompt)
    assert source is not None
    first, retry = ANSWERS[source.group(1)]
    return retry if options.temperature > 0 else first


async def test_no_preamble_reply_or_tag_reaches_the_client(make_app) -> None:
    engine = FakeEngine(responder=misbehaving)
    texts = list(ANSWERS)
    with capture_logs() as logs:
        async with served(make_app(engine)) as url:
            client = deepl.DeepLClient("alice", server_url=url)
            results = await asyncio.to_thread(client.rephrase_text, texts)
            async with httpx.AsyncClient(base_url=url) as http:
                metrics = (await http.get("/metrics")).text
    assert [r.text for r in results] == [
        "This sentence is not very well written.",  # the retry's
        "Please send me the report by Friday.",  # the reply around it stripped
        "I have been working here for three years.",  # the tag stripped
        "Here is the corrected text: we were tired.",  # the text's own words kept
        "She don't like to drive in the night.",  # no rewrite twice: as sent
    ]
    # One retry for the preamble, two answers for the reply alone.
    assert len(engine.requests) == len(texts) + 2
    (returned,) = [line for line in logs if line["event"] == "write_returned_as_sent"]
    assert returned["failures"] == ["reply", "reply"]
    (request_line,) = [
        line for line in logs if line["event"] == "request" and "write" in line.get("route", "")
    ]
    assert request_line["warnings"] == ["not_rewritten"]
    assert sorted(request_line["quality_failures"]) == ["preamble", "reply", "reply"]
    route = 'route="/v2/write/rephrase"'
    assert f'translate_quality_warnings_total{{kind="not_rewritten",{route}}} 1.0' in metrics
    assert f"translate_quality_retries_total{{{route}}} 2.0" in metrics
