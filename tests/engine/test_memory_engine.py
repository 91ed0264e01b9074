"""DeepL's translation memory and context on the real engine: `translate-server serve` on the
tiny random-weight model, driven by the official `deepl` client. Its output is gibberish, so
these tests check what reaches the engine (an exact match never does; close matches and
context lengthen the prompt the engine reads), never quality. The run's shared server: each test
imports its memory under a DeepL key of its own."""

from __future__ import annotations

from pathlib import Path

import deepl
import httpx
import pytest

from translate_server.memory.entries import Entry
from translate_server.memory.formats import write_tmx

from tests.support.server_process import ServerProcess

ENTRIES = [
    Entry("Save the file.", "Speichern Sie die Datei.", "en", "de"),
    Entry("Open the settings window.", "Öffnen Sie das Einstellungsfenster.", "en", "de"),
    Entry("Close the settings window.", "Schließen Sie das Einstellungsfenster.", "en", "de"),
]


@pytest.fixture
def server(tiny_server: ServerProcess) -> ServerProcess:
    return tiny_server


def _prompt_tokens(server: ServerProcess, **fields: object) -> int:
    body = {"text": "Open the settings windows.", "source_lang": "en", "target_lang": "de"}
    response = httpx.post(
        f"{server.base_url}/translate", json=body | {"max_tokens": 4} | fields, timeout=120
    )
    assert response.status_code == 200, response.text
    return int(response.json()["usage"]["prompt_tokens"])


def test_a_deepl_memory_answers_exact_matches_and_feeds_close_ones_to_the_engine(
    server: ServerProcess, tmp_path: Path, deepl_key: str
) -> None:
    tmx = tmp_path / "product.tmx"
    tmx.write_bytes(write_tmx(ENTRIES))
    client = deepl.DeepLClient(deepl_key, server_url=server.base_url)
    job = client.import_translation_memory_from_filepath(tmx, display_name="product")
    memory_id = job.result.translation_memory_id
    assert client.get_translation_memory(memory_id).segment_count == 3

    exact = client.translate_text(
        "Save the file.", source_lang="EN", target_lang="DE", translation_memory=memory_id
    )
    assert exact.text == "Speichern Sie die Datei."

    plain = _prompt_tokens(server)
    with_examples = _prompt_tokens(server, memory=memory_id)
    with_context = _prompt_tokens(server, context="The settings window has two tabs.")
    # The engine read the memory's two close entries, and the context, besides the text.
    assert with_examples > plain + 20
    assert with_context > plain + 8
    # The stock client's context reaches the engine and comes back as one translation.
    result = client.translate_text(
        "Open the settings windows.",
        source_lang="EN",
        target_lang="DE",
        context="The settings window has two tabs.",
    )
    assert isinstance(result.text, str) and result.billed_characters == len(
        "Open the settings windows."
    )
