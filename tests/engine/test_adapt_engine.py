"""`translate-server adapt` on the tiny model: a peft adapter trained in the service's prompt
format, scored on held-out pairs, stopped halfway and resumed, ready for `--lora`."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from translate_server.adapt.train import CHECKPOINT, REPORT
from translate_server.adapters.spec import read_adapter
from translate_server.cli import main

WORDS = [("house", "Haus"), ("tree", "Baum"), ("dog", "Hund"), ("cat", "Katze")]


@pytest.fixture
def pairs(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.csv"
    with path.open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["en", "de"])
        for i in range(6):
            for english, german in WORDS:
                writer.writerow([f"The {english} number {i}.", f"Das {german} Nummer {i}."])
    return path


def run(pairs: Path, model: Path, output: Path, *extra: str) -> dict:
    argv = [
        "adapt",
        str(pairs),
        "--model",
        str(model),
        "--output",
        str(output),
        "--epochs",
        "2",
        "--batch-size",
        "7",
        "--held-out",
        "0.125",
        "--learning-rate",
        "3e-3",
        "--max-new-tokens",
        "12",
        "--no-progress",
        *extra,
    ]
    assert main(argv) == 0
    report: dict = json.loads((output / REPORT).read_text())
    return report


def test_adapt_stops_resumes_and_writes_an_adapter_the_server_reads(tiny_model, pairs, tmp_path):
    """Slow: it trains an adapter for real on the CPU, twice (stopped, then resumed)."""
    output = tmp_path / "adapter"
    first = run(pairs, tiny_model, output, "--max-steps", "2")
    assert (first["finished"], first["steps_done"], first["steps_total"]) == (False, 2, 6)
    assert (first["train_pairs"], first["held_out_pairs"]) == (21, 3)
    assert (output / CHECKPOINT / "state.json").exists()
    assert not (output / "adapter_model.safetensors").exists()
    assert first["chrf_after"] is None

    second = run(pairs, tiny_model, output)
    assert (second["finished"], second["steps_done"]) == (True, 6)
    # Scored before training once, in the first run; the resumed run kept that figure.
    assert second["chrf_before"] == first["chrf_before"]
    assert isinstance(second["chrf_after"], float)
    assert second["last_loss"] < second["first_loss"]  # it learnt something
    assert not (output / CHECKPOINT).exists()
    assert second["adapter_bytes"] > 0
    spec = read_adapter("tiny-de", str(output))
    assert spec.serves == ["en-de"]
    assert spec.rank == 8
    assert spec.base_model == str(tiny_model)
