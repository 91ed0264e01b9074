"""What `translate-server adapt` learns from: human translations (a memory, or TMX, PO,
XLIFF and CSV files read by the memories' own readers), split into training and held-out
pairs, each rendered in the prompt the service sends the served model for that pair.

The prompt is the service's own (`build_translation_prompt` with the model family's
template, tokenized as the engine tokenizes it), so what the adapter learns is what it is
asked when it serves.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from translate_server.memory.entries import Entry
from translate_server.memory.formats import read_entries
from translate_server.text.languages import Language, resolve_language
from translate_server.translation.guard.hygiene import clean_translation
from translate_server.translation.prompts.templates import (
    PromptTemplate,
    build_translation_prompt,
    translation_stop,
)


def read_files(paths: Sequence[Path], source: str | None, target: str | None) -> list[Entry]:
    entries: list[Entry] = []
    for path in paths:
        entries += read_entries(path.read_bytes(), path.name, source, target)
    return entries


def read_memory(database: Path | str, memory_id: str, owner: str = "") -> list[Entry]:
    """A translation memory's entries, from the server's memory database: an SQLite file's
    path, or a database URL (postgresql://...)."""
    from translate_server.memory.store import MemoryStore
    from translate_server.storage.opening import migrated_database

    async def read() -> list[Entry]:
        async with migrated_database(database, "memory") as opened:
            found = await MemoryStore(opened).entries(owner, memory_id)
        if found is None:
            raise ValueError(f"no memory {memory_id} in {database}")
        return found[1]

    return asyncio.run(read())


def split(
    entries: Sequence[Entry], held_out: float, seed: int, max_pairs: int | None = None
) -> tuple[list[Entry], list[Entry]]:
    """Unique pairs shuffled by `seed`; the held-out share (at least one) is never trained on.
    A source seen in the held-out share is kept out of training too."""
    unique = list({(e.source, e.target, e.source_lang, e.target_lang): e for e in entries}.values())
    random.Random(seed).shuffle(unique)
    if max_pairs is not None:
        unique = unique[:max_pairs]
    if len(unique) < 2:
        raise ValueError("adapting needs at least two pairs (one of them held out)")
    count = max(1, round(len(unique) * held_out))
    held = unique[:count]
    sources = {e.source for e in held}
    return [e for e in unique[count:] if e.source not in sources], held


@dataclass(frozen=True)
class Prompter:
    """The service's prompt of a pair for one model family, as token ids."""

    tokenizer: Any
    template: PromptTemplate

    def languages(self, entry: Entry) -> tuple[Language, Language]:
        return resolve_language(entry.source_lang), resolve_language(entry.target_lang)

    def prompt_ids(self, entry: Entry) -> list[int]:
        from translate_server.inference.engine.prompt_encoder import ChatPromptTokenizer

        source, target = self.languages(entry)
        prompt = build_translation_prompt(entry.source, source, target, template=self.template)
        if isinstance(prompt, str):
            # As the engine tokenizes a completion prompt (its BOS added).
            return list(
                self.tokenizer.encode(prompt, add_special_tokens=True, split_special_tokens=True)
            )
        return ChatPromptTokenizer(self.tokenizer)(prompt)

    def answer_ids(self, entry: Entry) -> list[int]:
        """What the model should write: the translation, then where the service stops it (a
        completion's end of line, a chat's end of turn)."""
        if self.template.kind == "completion":
            text = f" {entry.target}\n"
            return list(self.tokenizer.encode(text, add_special_tokens=False))
        ids = list(self.tokenizer.encode(entry.target, add_special_tokens=False))
        return [*ids, self.tokenizer.eos_token_id]

    def example(self, entry: Entry) -> tuple[list[int], list[int]]:
        """Input ids and labels: the loss is on the answer alone."""
        prompt, answer = self.prompt_ids(entry), self.answer_ids(entry)
        return prompt + answer, [-100] * len(prompt) + answer

    def cleaned(self, entry: Entry, output: str) -> str:
        """The model's output as the service would send it: cut at its stops, cleaned."""
        for stop in translation_stop(entry.source, self.template):
            output = output.split(stop, 1)[0]
        source, target = self.languages(entry)
        return clean_translation(output, entry.source, languages=(source.name, target.name))


def pairs_served(entries: Sequence[Entry]) -> list[str]:
    """The adapter's rules: each language pair it learnt (primary subtags)."""
    pairs = {
        f"{e.source_lang.split('-')[0].lower()}-{e.target_lang.split('-')[0].lower()}"
        for e in entries
    }
    return sorted(pairs)
