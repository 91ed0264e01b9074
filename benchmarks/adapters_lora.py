"""Rank-8 peft LoRA adapters with random weights for the adapters benchmark.

What an adapter costs does not depend on what it learnt: vLLM computes the same two small
matrix products whatever their values. B must not be zero (peft's start), or a request would
run the adapter's kernels for nothing it could show; it is small, so that answers stay
sentences of about the base model's length and the arms generate comparable work.
"""

from __future__ import annotations

from pathlib import Path

TARGET_MODULES = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
B_STD = 1e-3


def build_random_lora(
    model_dir: str, target: Path, *, rank: int = 8, seed: int = 1, b_std: float = B_STD
) -> Path:
    """A peft adapter for `model_dir` in `target` (kept when it is already there)."""
    if (target / "adapter_config.json").exists():
        return target
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    torch.manual_seed(seed)
    base = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    config = LoraConfig(r=rank, lora_alpha=2 * rank, target_modules=TARGET_MODULES)
    model = get_peft_model(base, config)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if "lora_B" in name:
                parameter.normal_(0.0, b_std)
    model.save_pretrained(target)
    return target
