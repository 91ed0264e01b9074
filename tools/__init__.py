"""The build's own checks, run by `make lint` beside ruff, mypy and import-linter."""
