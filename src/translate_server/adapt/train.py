"""`translate-server adapt`: a LoRA adapter of the served base model, trained with peft on
human translations in the service's own prompt format, with chrF on held-out pairs before and
after (the scoring of `bench quality`).

Training stops at its last step, at `--max-minutes`, or at `--max-steps` for this run; its
state (adapter, optimizer, step) is kept in `<output>/.checkpoint` every few steps and at a
stop, so running the same command again goes on from there. The data order is a function of
the seed and the epoch: a resumed run takes the very batches the interrupted one would have.
A GPU is used where torch sees one.
"""

from __future__ import annotations

import json
import math
import random
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from translate_server.adapt.data import Prompter, pairs_served
from translate_server.adapters.spec import write_serves_file
from translate_server.memory.entries import Entry
from translate_server.quality.scoring import corpus_chrf

CHECKPOINT = ".checkpoint"
REPORT = "adapt-report.json"
# Every linear layer of a decoder block: the usual choice for a small model.
TARGET_MODULES = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


@dataclass(frozen=True)
class AdaptOptions:
    output: Path
    rank: int = 8
    epochs: int = 3
    batch_size: int = 8
    learning_rate: float = 2e-4
    seed: int = 0
    max_minutes: float | None = None
    max_steps: int | None = None  # this run only (the next run goes on)
    save_every: int = 20
    max_new_tokens: int = 128


@dataclass
class AdaptReport:
    model: str
    device: str
    train_pairs: int
    held_out_pairs: int
    steps_done: int
    steps_total: int
    finished: bool
    seconds: float
    chrf_before: float
    chrf_after: float | None = None
    first_loss: float | None = None
    last_loss: float | None = None
    adapter_bytes: int = 0
    serves: list[str] = field(default_factory=list)


def adapt(
    model_dir: Path,
    model_name: str,
    prompter: Prompter,
    train: Sequence[Entry],
    held: Sequence[Entry],
    options: AdaptOptions,
    progress: Callable[[int, int], Any] | None = None,
) -> AdaptReport:
    import torch

    started = time.monotonic()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(options.seed)
    run = _Run.begin(model_dir, prompter, held, options, device)
    batches = _batches(len(train), options)
    deadline = None if options.max_minutes is None else started + options.max_minutes * 60
    run.train(
        batches,
        [prompter.example(entry) for entry in train],
        pad=prompter.tokenizer.pad_token_id or 0,
        deadline=deadline,
        progress=progress,
    )
    finished = run.step >= len(batches)
    losses = run.state["losses"]
    report = AdaptReport(
        model=model_name,
        device=device,
        train_pairs=len(train),
        held_out_pairs=len(held),
        steps_done=run.step,
        steps_total=len(batches),
        finished=finished,
        seconds=round(time.monotonic() - started, 1),
        chrf_before=run.state["chrf_before"],
        first_loss=_mean(losses[: max(1, len(losses) // 10)]),
        last_loss=_mean(losses[-max(1, len(losses) // 10) :]),
        serves=pairs_served(train),
    )
    if finished:
        report.chrf_after = evaluate(run.model, prompter, held, options.max_new_tokens, device)
        _save_adapter(run.model, options.output, report, model_name)
        shutil.rmtree(run.checkpoint, ignore_errors=True)
    else:
        run.save()
    report.seconds = round(time.monotonic() - started, 1)
    (options.output / REPORT).write_text(json.dumps(asdict(report), indent=2) + "\n")
    return report


@dataclass
class _Run:
    """One run of the training: the model with its LoRA adapter, the optimizer, and the state
    a checkpoint keeps (the step reached, chrF before training, every step's loss)."""

    model: Any
    optimizer: Any
    state: dict[str, Any]
    checkpoint: Path
    options: AdaptOptions
    device: str

    @classmethod
    def begin(
        cls,
        model_dir: Path,
        prompter: Prompter,
        held: Sequence[Entry],
        options: AdaptOptions,
        device: str,
    ) -> _Run:
        """Where the last run stopped, from its checkpoint; else a new adapter on the base
        model, and the base model's chrF on the held-out pairs."""
        import torch
        from peft import LoraConfig, PeftModel, get_peft_model
        from transformers import AutoModelForCausalLM

        base = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).to(device)
        checkpoint = options.output / CHECKPOINT
        state = _read_state(checkpoint)
        if state is not None:
            model = PeftModel.from_pretrained(base, checkpoint / "adapter", is_trainable=True)
        else:
            config = LoraConfig(
                r=options.rank,
                lora_alpha=2 * options.rank,
                lora_dropout=0.05,
                target_modules=[m for m in TARGET_MODULES if _has_module(base, m)],
                task_type="CAUSAL_LM",
            )
            model = get_peft_model(base, config)
            with model.disable_adapter():
                chrf_before = evaluate(model, prompter, held, options.max_new_tokens, device)
            state = {"step": 0, "chrf_before": chrf_before, "losses": []}
        optimizer = torch.optim.AdamW(
            [p for p in model.parameters() if p.requires_grad], lr=options.learning_rate
        )
        if (checkpoint / "optimizer.pt").exists():
            optimizer.load_state_dict(torch.load(checkpoint / "optimizer.pt", weights_only=True))
        return cls(model, optimizer, state, checkpoint, options, device)

    @property
    def step(self) -> int:
        return int(self.state["step"])

    def train(
        self,
        batches: list[list[int]],
        examples: list[tuple[list[int], list[int]]],
        *,
        pad: int,
        deadline: float | None,
        progress: Callable[[int, int], Any] | None,
    ) -> None:
        """Steps from where the run stands to the last batch, or to the `deadline`
        (`time.monotonic()`) or `max_steps` of this run; a checkpoint every `save_every`."""
        first = self.step
        self.model.train()
        while self.step < len(batches) and not self._stopped(first, deadline):
            ids, labels, mask = _collate(
                [examples[i] for i in batches[self.step]], pad, self.device
            )
            loss = self.model(input_ids=ids, attention_mask=mask, labels=labels).loss
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
            self.state["losses"].append(round(loss.item(), 4))
            self.state["step"] = step = self.step + 1
            if progress is not None:
                progress(step, len(batches))
            if step % self.options.save_every == 0 and step < len(batches):
                self.save()
        self.model.eval()

    def _stopped(self, first: int, deadline: float | None) -> bool:
        if deadline is not None and time.monotonic() >= deadline:
            return True
        return self.options.max_steps is not None and self.step - first >= self.options.max_steps

    def save(self) -> None:
        _save_checkpoint(self.model, self.optimizer, self.state, self.checkpoint)


def evaluate(
    model: Any, prompter: Prompter, held: Sequence[Entry], max_new_tokens: int, device: str
) -> float:
    """chrF of the model's greedy answers to the held-out pairs, cleaned as the service
    cleans them."""
    import torch

    answers = []
    tokenizer = prompter.tokenizer
    for entry in held:
        prompt = prompter.prompt_ids(entry)
        with torch.no_grad():
            output = model.generate(
                input_ids=torch.tensor([prompt], device=device),
                attention_mask=torch.ones(1, len(prompt), dtype=torch.long, device=device),
                max_new_tokens=max_new_tokens,
                do_sample=False,
                pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id,
            )
        text = tokenizer.decode(output[0][len(prompt) :], skip_special_tokens=True)
        answers.append(prompter.cleaned(entry, text))
    return corpus_chrf(answers, [entry.target for entry in held])


def _batches(count: int, options: AdaptOptions) -> list[list[int]]:
    """Every step's example indices, fixed by the seed: epoch by epoch, each shuffled."""
    batches = []
    for epoch in range(options.epochs):
        order = list(range(count))
        random.Random(options.seed * 1000 + epoch).shuffle(order)
        per = options.batch_size
        batches += [order[i : i + per] for i in range(0, count, per)]
    return batches


def _collate(examples: list[tuple[list[int], list[int]]], pad: int, device: str) -> Any:
    import torch

    width = max(len(ids) for ids, _ in examples)
    ids = [i + [pad] * (width - len(i)) for i, _ in examples]
    labels = [lab + [-100] * (width - len(lab)) for _, lab in examples]
    mask = [[1] * len(i) + [0] * (width - len(i)) for i, _ in examples]
    return (
        torch.tensor(ids, device=device),
        torch.tensor(labels, device=device),
        torch.tensor(mask, device=device),
    )


def _has_module(model: Any, name: str) -> bool:
    return any(module.endswith("." + name) for module, _ in model.named_modules())


def _read_state(checkpoint: Path) -> dict[str, Any] | None:
    try:
        state: dict[str, Any] = json.loads((checkpoint / "state.json").read_text())
    except (OSError, ValueError):
        return None
    return state


def _save_checkpoint(model: Any, optimizer: Any, state: dict[str, Any], checkpoint: Path) -> None:
    """Written beside the old one and renamed over it: an interruption while saving leaves
    the previous checkpoint whole."""
    import torch

    staging = checkpoint.with_name(CHECKPOINT + ".new")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    model.save_pretrained(staging / "adapter")
    torch.save(optimizer.state_dict(), staging / "optimizer.pt")
    (staging / "state.json").write_text(json.dumps(state))
    shutil.rmtree(checkpoint, ignore_errors=True)
    staging.rename(checkpoint)


def _save_adapter(model: Any, output: Path, report: AdaptReport, model_name: str) -> None:
    model.save_pretrained(output)
    write_serves_file(output, report.serves, model_name)
    report.adapter_bytes = sum(
        path.stat().st_size for path in output.iterdir() if path.name.startswith("adapter_")
    )


def _mean(values: Sequence[float]) -> float | None:
    return round(math.fsum(values) / len(values), 4) if values else None
