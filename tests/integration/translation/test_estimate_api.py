"""POST /translate/estimate: translations made elsewhere scored from the engine's log
probabilities of them (one prefill, nothing sampled), on /translate's own scale."""

from __future__ import annotations

from tests.support.fakes import FakeEngine
from tests.support.harness import AppClient

SOURCE = "The meeting has been moved to Thursday afternoon."
GOOD = "Die Besprechung wurde auf Donnerstagnachmittag verschoben."
DOUBTFUL = "Das Treffen Donnerstag."


async def test_scores_a_translation_from_its_prompt_log_probabilities(
    client: AppClient, engine: FakeEngine
) -> None:
    # The double finds the words of one translation unlikely.
    engine.prompt_logprob_of = lambda token, before: -4.0 if "Treffen" in before + token else -0.2
    good = await client.post(
        "/translate/estimate",
        json={"source": SOURCE, "translation": GOOD, "source_lang": "en", "target_lang": "de"},
    )
    assert good.status_code == 200, good.text
    body = good.json()
    assert set(body) >= {"quality_estimate", "needs_review", "model", "usage"}
    assert body["needs_review"] is False and "warnings" not in body
    (_, prompt, options) = engine.requests[-1]
    # The pair's translation prompt followed by the translation, read once.
    text = engine.decode(prompt)
    assert text.index(SOURCE) < text.index(GOOD) and text.endswith(GOOD)
    assert options.prompt_logprobs and options.max_tokens == 1 and options.temperature == 0
    doubtful = await client.post(
        "/translate/estimate",
        json={"source": SOURCE, "translation": DOUBTFUL, "source_lang": "en", "target_lang": "de"},
    )
    assert doubtful.json()["quality_estimate"] < body["quality_estimate"]


async def test_a_list_scores_each_pair_and_flags_a_copy_of_the_source(client: AppClient) -> None:
    answer = await client.post(
        "/translate/estimate",
        json={
            "source": [SOURCE, SOURCE],
            "translation": [GOOD, SOURCE],
            "source_lang": "en",
            "target_lang": "de",
            "quality_signals": True,
        },
    )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert len(body["quality_estimate"]) == 2
    assert body["needs_review"] == [False, True]
    assert body["warnings"] == [[], ["echo"]]
    assert body["quality_signals"][0]["features"]["mean_logprob"] is not None
    mismatched = await client.post(
        "/translate/estimate",
        json={"source": [SOURCE, SOURCE], "translation": [GOOD], "target_lang": "de"},
    )
    assert mismatched.status_code == 400
    assert mismatched.json()["error"]["param"] == "translation"
