"""Quality estimation: how far to trust each translation (a number 0..1 and `needs_review`),
from signals the service already has (`signals`, `features`) and a model fitted on human
translations (`model`, `coefficients.toml`)."""
