"""A quality-estimate model for the engine double (`fake-model`), written as a models file the
app reads (`quality_estimate_models`): the estimate follows the double's log probabilities
and drops with a warning, whatever the bundled models were last fitted to."""

from __future__ import annotations

from pathlib import Path

MODELS = """
[fake]
match = ["fake-model"]
intercept = 0.0
slope = 1.0
offset = 0.0
threshold = 0.5

[fake.features.mean_logprob]
coefficient = 2.0
mean = -1.0
scale = 0.5

[fake.features.warned]
coefficient = -4.0
mean = 0.0
scale = 1.0
"""


def estimate_models(folder: Path) -> str:
    path = folder / "estimate-models.toml"
    path.write_text(MODELS)
    return str(path)
