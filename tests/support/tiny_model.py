"""A tiny random-weight chat model, built locally so engine tests need no model hub.

LlamaForCausalLM with hidden size 128, 2 layers, 4 heads (head_dim 32: vLLM's CPU attention
rejects 16) and a byte-level BPE tokenizer trained here on a few lines of multilingual text,
with a ChatML template and `<|im_end|>` as end of sequence. About 1 MB of float32 weights.
Its output is gibberish: it tests plumbing, never quality. Sample with a fixed seed to get
varied text (greedy decoding of random weights tends to repeat one token).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

VOCAB_SIZE = 640
MAX_POSITIONS = 1024
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
_MARKER = ".complete"

CORPUS = [
    "Translate the following text from English to German.",
    "Good morning, how are you? I am fine, thank you.",
    "Guten Morgen, wie geht es dir? Mir geht es gut, danke.",
    "Bonjour, comment allez-vous ? Je vais bien, merci.",
    "Buenos días, ¿cómo estás? Estoy bien, gracias.",
    "Bom dia, como você está? Estou bem, obrigado.",
    "Buongiorno, come stai? Sto bene, grazie.",
    "Dzień dobry, jak się masz? Dziękuję, dobrze.",
    "Доброе утро, как дела? Спасибо, хорошо.",
    "おはようございます。お元気ですか？",
    "早上好，你好吗？我很好，谢谢。",
    "Where is the train station? Wo ist der Bahnhof? Où est la gare ?",
    "The quick brown fox jumps over the lazy dog. 0123456789",
    "You are a professional translator. Answer with the translation only.",
]


def _fingerprint() -> str:
    """Changes whenever this recipe or the libraries that write the files change."""
    import tokenizers
    import transformers

    digest = hashlib.sha256(Path(__file__).read_bytes())
    digest.update(f"{transformers.__version__} {tokenizers.__version__}".encode())
    return digest.hexdigest()[:16]


def _train_tokenizer():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(CORPUS * 4, trainer=trainer)
    return tokenizer


def build_tiny_model(target: Path) -> Path:
    """Write the model directory `target` (config, safetensors weights, tokenizer)."""
    import torch
    from transformers import (
        GenerationConfig,
        LlamaConfig,
        LlamaForCausalLM,
        PreTrainedTokenizerFast,
    )

    target.mkdir(parents=True, exist_ok=True)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=_train_tokenizer(),
        bos_token="<|endoftext|>",
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        unk_token=None,
    )
    tokenizer.save_pretrained(target)
    # The chat template lives in tokenizer_config.json, as in most published models (newer
    # transformers would write it to chat_template.jinja instead).
    (target / "chat_template.jinja").unlink(missing_ok=True)
    config_path = target / "tokenizer_config.json"
    tokenizer_config = json.loads(config_path.read_text())
    tokenizer_config["chat_template"] = CHAT_TEMPLATE
    config_path.write_text(json.dumps(tokenizer_config, indent=2, ensure_ascii=False))

    eos_id = tokenizer.convert_tokens_to_ids("<|im_end|>")
    bos_id = tokenizer.convert_tokens_to_ids("<|endoftext|>")
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=MAX_POSITIONS,
        bos_token_id=bos_id,
        eos_token_id=eos_id,
        pad_token_id=bos_id,
        tie_word_embeddings=True,
        torch_dtype="float32",
    )
    torch.manual_seed(0)
    model = LlamaForCausalLM(config)
    model.generation_config = GenerationConfig(bos_token_id=bos_id, eos_token_id=eos_id)
    model.save_pretrained(target, safe_serialization=True)
    return target


def tiny_model_dir(cache_root: Path) -> Path:
    """The tiny model, built once per recipe under `cache_root` and reused after that.

    Built in a temporary directory and renamed into place, so an interrupted build is never
    mistaken for a finished one.
    """
    target = cache_root / f"tiny-llama-{_fingerprint()}"
    if (target / _MARKER).exists():
        return target
    cache_root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".building-", dir=cache_root))
    try:
        build_tiny_model(staging)
        (staging / _MARKER).write_text("ok\n")
        shutil.rmtree(target, ignore_errors=True)
        try:
            os.rename(staging, target)
        except OSError:
            # Another test process finished the same build first: theirs is as good.
            if not (target / _MARKER).exists():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target
