"""The quality guard: each answer cleaned (hygiene), checked for the failures a small model
makes (checks, completeness), retried once, and what is still wrong kept as the record's
findings and the answer's `warnings`."""
