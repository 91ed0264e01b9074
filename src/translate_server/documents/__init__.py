"""Whole files translated as jobs: format handlers, a job store that survives restarts, and
the runner that feeds a document's segments to the translator in bounded batches."""
