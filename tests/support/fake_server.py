"""`translate-server serve`'s server loop around the engine double, as its own process:
`python -m tests.support.fake_server PORT [token_delay] [die_after_tokens] [document_dir]`
from the repository's root (default: a new temporary directory for the document jobs).
`TRANSLATE_*` variables set other options (`TRANSLATE_TRANSLATION_CACHE_SIZE=0` for a benchmark
that must reach the engine). `FAKE_SERVER_ANSWERS=mixed`: translations as a small model might
give them (`fakes.mixed_translator`), checked by the quality guard, for comparing two
checkouts' answers one by one (`translate-server bench quality` against each)."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from translate_server.server.logging_setup import configure_logging
from translate_server.server.run import run_server
from translate_server.settings import load_settings

from tests.support.fakes import FakeEngine, mixed_translator


def main() -> int:
    port = int(sys.argv[1])
    token_delay = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    die_after_tokens = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] else None
    document_dir = sys.argv[4] if len(sys.argv) > 4 else tempfile.mkdtemp()
    mixed = os.environ.get("FAKE_SERVER_ANSWERS") == "mixed"
    settings = load_settings(
        {
            "port": port,
            "served_model_name": "fake-model",
            "shutdown_grace": 10.0,
            "log_format": "json",
            "document_dir": document_dir,
            "quality_guard": mixed,
            # Glossaries and memories of throwaway databases, not the user's.
            "glossary_db": str(Path(tempfile.mkdtemp()) / "glossaries.db"),
            "memory_db": str(Path(tempfile.mkdtemp()) / "memories.db"),
        },
        environ=os.environ,
    )
    configure_logging("json", "info")

    def make_engine() -> FakeEngine:
        engine = FakeEngine(token_delay=token_delay)
        engine.responder = (
            mixed_translator if mixed else lambda prompt, options: " ".join(["word"] * 20)
        )
        engine.fail_after_tokens = die_after_tokens
        return engine

    return run_server(settings, make_engine)


if __name__ == "__main__":
    sys.exit(main())
