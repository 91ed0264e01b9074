"""A LoRA adapter for the tiny test model, made with peft: random weights on both sides (peft
starts B at zero, which would change nothing), so the adapter visibly changes the output."""

from __future__ import annotations

import json
from pathlib import Path

TARGET_MODULES = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def build_tiny_lora(model_dir: Path, target: Path, rank: int = 8, seed: int = 1) -> Path:
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    torch.manual_seed(seed)
    base = AutoModelForCausalLM.from_pretrained(model_dir)
    config = LoraConfig(
        r=rank, lora_alpha=2 * rank, target_modules=TARGET_MODULES, init_lora_weights=False
    )
    get_peft_model(base, config).save_pretrained(target)
    return target


def fake_adapter_dir(root: Path, name: str, rank: int = 8) -> Path:
    """A folder that reads as a LoRA adapter (its config alone), for the engine double."""
    folder = root / name
    folder.mkdir(exist_ok=True)
    (folder / "adapter_config.json").write_text(json.dumps({"peft_type": "LORA", "r": rank}))
    return folder
