"""The tests. A package so that their shared helpers import by name: `tests.support`."""
