"""`translate-server bench quality`: translation quality on human translations shipped in
packages, and the rate of each classic failure (see docs/quality.md)."""
