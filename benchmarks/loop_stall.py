"""How long the event loop stalls while long prompts are tokenized: on the loop itself, against
the service's way (a prompt of `THREAD_PROMPT_CHARS` or more in a worker thread).

    python benchmarks/loop_stall.py --tokenizer <model dir> [--prompt-tokens 2000] [--prompts 8]

A ticker task on the event loop asks to wake every millisecond and notes how late it woke:
what a stream in flight would have waited for its next event. Meanwhile `--prompts` chats of
about `--prompt-tokens` tokens each go through `GenerationService.render` at once, as that
many requests arriving together would. Per way: the ticker's worst and p99 lateness, and the
wall time until all prompts were tokenized. The two ways alternate, round by round; the
figures are medians over rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import time
from collections.abc import Awaitable, Callable

from transformers import AutoTokenizer

from translate_server.inference.engine import ChatMessage, EngineInfo
from translate_server.inference.engine.prompt_encoder import ChatPromptTokenizer
from translate_server.inference.generation import THREAD_PROMPT_CHARS, GenerationService, Prompt
from translate_server.loadgen.corpus import SENTENCES
from translate_server.loadgen.stats import percentile

TICK_S = 0.001


class TokenizingEngine:
    """The engine's tokenizing half, with the real tokenizer: all that rendering needs."""

    def __init__(self, path: str) -> None:
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.tokenize_chat = ChatPromptTokenizer(self.tokenizer)
        self.info = EngineInfo(model=path, max_model_len=1 << 20)


def conversations(tokenizer, count: int, tokens: int) -> list[list[ChatMessage]]:
    """`count` different chats of about `tokens` tokens of everyday English."""
    sentences = itertools.cycle(SENTENCES["en"])
    chats = []
    for index in range(count):
        words: list[str] = [f"Document {index}."]
        while len(tokenizer.encode(" ".join(words), add_special_tokens=False)) < tokens:
            words.extend(next(sentences) for _ in range(8))
        chats.append(
            [
                {"role": "system", "content": "Summarize the user's document."},
                {"role": "user", "content": " ".join(words)},
            ]
        )
    return chats


async def one_round(
    render: Callable[[list[ChatMessage]], Awaitable[Prompt]], chats: list[list[ChatMessage]]
) -> dict:
    loop = asyncio.get_running_loop()
    lateness: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        while not done.is_set():
            asked = loop.time()
            await asyncio.sleep(TICK_S)
            lateness.append(loop.time() - asked - TICK_S)

    ticking = asyncio.create_task(ticker())
    await asyncio.sleep(0.05)  # the ticker's pace before any prompt arrives
    began = time.perf_counter()
    await asyncio.gather(*(render(chat) for chat in chats))
    elapsed = time.perf_counter() - began
    await asyncio.sleep(0.01)
    done.set()
    await ticking
    return {
        "worst_ms": max(lateness) * 1e3,
        "p99_ms": percentile(lateness, 99) * 1e3,
        "tokenized_ms": elapsed * 1e3,
    }


async def main(args: argparse.Namespace) -> None:
    engine = TokenizingEngine(args.tokenizer)
    service = GenerationService(engine)  # type: ignore[arg-type]

    async def on_the_loop(chat: list[ChatMessage]) -> Prompt:
        return service.render_inline(chat)

    ways = {"on the loop": on_the_loop, "worker thread": service.render}
    results: dict[str, list[dict]] = {way: [] for way in ways}
    for round_ in range(args.rounds):
        # New texts every round: the encoder caches the pieces it has seen.
        chats = conversations(engine.tokenizer, args.prompts, args.prompt_tokens + round_)
        order = list(ways) if round_ % 2 == 0 else list(reversed(ways))
        for way in order:
            engine.tokenize_chat.clear_cache()
            results[way].append(await one_round(ways[way], chats))
    chars = sum(len(m["content"]) for m in chats[0])
    print(
        f"{args.prompts} prompts of about {args.prompt_tokens} tokens ({chars:,} characters),"
        f" {args.rounds} rounds; loop lateness while they are tokenized (medians)"
    )
    if chars < THREAD_PROMPT_CHARS:
        print(
            f"below THREAD_PROMPT_CHARS ({THREAD_PROMPT_CHARS:,}): the service tokenizes "
            "these on the loop too"
        )
    print(f"{'way':<14} {'worst ms':>9} {'p99 ms':>8} {'all tokenized ms':>17}")
    for way, rounds in results.items():
        figures = {key: statistics.median(r[key] for r in rounds) for key in rounds[0]}
        print(
            f"{way:<14} {figures['worst_ms']:9.2f} {figures['p99_ms']:8.2f} "
            f"{figures['tokenized_ms']:17.1f}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tokenizer", required=True, help="a model directory")
    parser.add_argument("--prompt-tokens", type=int, default=2000)
    parser.add_argument("--prompts", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=6)
    asyncio.run(main(parser.parse_args()))
