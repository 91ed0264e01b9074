"""`translate-server adapt`: argv in, an adapter folder and its report out. No logic here."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from translate_server.settings import DEFAULT_MODEL, EngineSettings


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="translate-server adapt",
        description="Train a LoRA adapter of the served model on human translations, in the "
        "prompt format the server uses for it; report chrF on held-out pairs before and "
        "after. Run it again to resume an interrupted run. Serve the result with "
        "`--lora NAME=OUTPUT`.",
    )
    parser.add_argument("files", nargs="*", type=Path, help="TMX, PO/MO, XLIFF, CSV/TSV files")
    parser.add_argument("--memory", help="a translation memory's id, instead of files")
    parser.add_argument(
        "--memory-db",
        type=Path,
        help="the server's memory database (default: memories.sqlite3 in --model-cache-dir)",
    )
    parser.add_argument("--source-lang", help="for files that do not say their languages")
    parser.add_argument("--target-lang", help="for files that do not say their languages")
    parser.add_argument("--output", "-o", type=Path, required=True, help="the adapter folder")
    parser.add_argument("--model", default=DEFAULT_MODEL, help="the served base model")
    parser.add_argument("--served-model-name", help="the name the server gives the model")
    parser.add_argument("--model-cache-dir", default=EngineSettings().model_cache_dir)
    parser.add_argument("--prompt-templates", help="the server's --prompt-templates file")
    parser.add_argument("--rank", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--learning-rate", type=float, default=2e-4)
    parser.add_argument("--held-out", type=float, default=0.1, help="share kept for scoring")
    parser.add_argument("--max-pairs", type=int, help="use at most this many pairs")
    parser.add_argument("--max-minutes", type=float, help="stop (resumably) after this long")
    parser.add_argument("--max-steps", type=int, help="stop (resumably) after this many steps")
    parser.add_argument("--max-new-tokens", type=int, default=128, help="per held-out answer")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv: Sequence[str]) -> int:
    args = _parser().parse_args(argv)
    if bool(args.files) == bool(args.memory):
        _parser().error("give files of translations or --memory, not both or neither")
    from tqdm import tqdm
    from transformers import AutoTokenizer

    from translate_server.adapt.data import Prompter, read_files, read_memory, split
    from translate_server.adapt.train import AdaptOptions, adapt
    from translate_server.inference.model_files import resolve_model
    from translate_server.translation.prompts.templates import PromptTemplates

    engine = EngineSettings(
        model=args.model,
        served_model_name=args.served_model_name,
        model_cache_dir=args.model_cache_dir,
    )
    if args.memory:
        database = args.memory_db or Path(args.model_cache_dir).expanduser() / "memories.sqlite3"
        entries = read_memory(database, args.memory)
    else:
        entries = read_files(args.files, args.source_lang, args.target_lang)
    train, held = split(entries, args.held_out, args.seed, args.max_pairs)
    model_dir = Path(resolve_model(engine))
    prompter = Prompter(
        AutoTokenizer.from_pretrained(model_dir),
        PromptTemplates.load(args.prompt_templates).for_model(engine.model_name),
    )
    args.output.mkdir(parents=True, exist_ok=True)
    options = AdaptOptions(
        output=args.output,
        rank=args.rank,
        epochs=args.epochs,
        batch_size=args.batch_size,
        learning_rate=args.learning_rate,
        seed=args.seed,
        max_minutes=args.max_minutes,
        max_steps=args.max_steps,
        max_new_tokens=args.max_new_tokens,
    )
    bar = tqdm(desc="adapt", unit="step", disable=args.no_progress, file=sys.stderr)

    def progress(step: int, total: int) -> None:
        bar.total = total
        bar.n = step
        bar.refresh()

    try:
        report = adapt(model_dir, engine.model_name, prompter, train, held, options, progress)
    finally:
        bar.close()
    print(json.dumps(asdict(report), indent=2))
    if not report.finished:
        print("stopped before the last step: run the same command again to go on", file=sys.stderr)
    return 0
