"""Settings that put an app's stores in a test's own folder: without them, an app opens the
SQLite files in the model cache (`~/.cache/translate-server`), the user's own."""

from __future__ import annotations

from pathlib import Path


def own_stores(folder: Path) -> dict[str, str]:
    """Settings overrides, by option name: the memories, DeepL accounts and document jobs in
    `folder`."""
    return {
        "document_dir": str(folder / "documents"),
        "glossary_db": str(folder / "glossaries.sqlite3"),
        "memory_db": str(folder / "memories.sqlite3"),
    }
