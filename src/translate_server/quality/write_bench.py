"""`translate-server bench write`: the share of DeepL Write answers that are rewrites of their
text, before the guard and after it, on 100 learners' sentences with one correction each
(`quality/data/write_errors.tsv`).

- before: the served model asked through /v1/chat/completions with the prompt Write sends
  (its model's template family), its answer cleaned as Write cleaned it before its guard
  (translation's hygiene alone);
- after: /v2/write/rephrase or /v2/write/correct as served, guard and all.

An answer counts as a rewrite where the guard's own judge (`translation.guard.rewrite`) finds
no preamble, reply, other meaning or other language in it and it is not the text as sent; the
report also gives how close answers come to the human corrections (rapidfuzz's ratio) and how
many equal one."""

from __future__ import annotations

import argparse
import asyncio
import json
from importlib import resources
from pathlib import Path
from typing import Any

import aiohttp
from rapidfuzz import fuzz

from translate_server.translation.guard.hygiene import clean_translation
from translate_server.translation.guard.rewrite import check_rewrite
from translate_server.translation.prompts.templates import PromptTemplates, build_write_messages

TASKS = ("rephrase", "correct")


def load_sentences() -> list[tuple[str, str]]:
    """(text, correction) pairs, in file order."""
    text = resources.files("translate_server.quality").joinpath("data/write_errors.tsv")
    lines = text.read_text(encoding="utf-8").splitlines()
    rows = [line.split("\t") for line in lines if line and not line.startswith("#")]
    return [(row[0], row[1]) for row in rows[1:] if len(row) == 2]  # after the header


def judged(task: str, pairs: list[tuple[str, str]], answers: list[str]) -> dict[str, Any]:
    """The share of answers that are rewrites, and their closeness to the corrections."""
    rewrites = unchanged = exact = 0
    closeness = 0.0
    failures: dict[str, int] = {}
    for (text, correction), answer in zip(pairs, answers, strict=True):
        verdict = check_rewrite(answer, text, task=task, language_name="English", language="en")
        if answer.strip() == text.strip():
            unchanged += 1
        elif verdict.failure is None and answer == verdict.text:
            rewrites += 1
        else:
            kind = verdict.failure or "scaffolding"
            failures[kind] = failures.get(kind, 0) + 1
        exact += answer.strip() == correction
        closeness += fuzz.ratio(answer.strip(), correction)
    count = len(pairs)
    return {
        "rewrites": round(rewrites / count, 4),
        "unchanged": round(unchanged / count, 4),
        "not_rewrites": failures,
        "equal_to_correction": round(exact / count, 4),
        "similarity_to_correction": round(closeness / count, 2),
    }


async def _before(
    session: aiohttp.ClientSession, base: str, model: str, task: str, texts: list[str]
) -> list[str]:
    template = PromptTemplates.load().for_model(model)
    gate = asyncio.Semaphore(8)

    async def one(text: str) -> str:
        messages = build_write_messages(text, "English", task, template=template)  # type: ignore[arg-type]
        body = {"model": model, "messages": messages, "temperature": 0, "max_tokens": 128}
        async with gate, session.post(f"{base}/v1/chat/completions", json=body) as response:
            payload = await response.json()
        answer = payload["choices"][0]["message"]["content"] or ""
        return clean_translation(answer, text, languages=("English",))

    return list(await asyncio.gather(*(one(text) for text in texts)))


async def _after(
    session: aiohttp.ClientSession, base: str, task: str, texts: list[str]
) -> list[str]:
    answers: list[str] = []
    for start in range(0, len(texts), 50):
        body = {"text": texts[start : start + 50]}
        async with session.post(f"{base}/v2/write/{task}", json=body) as response:
            payload = await response.json()
        answers += [item["text"] for item in payload["improvements"]]
    return answers


async def run(base_url: str, task: str, api_key: str | None) -> dict[str, Any]:
    pairs = load_sentences()
    texts = [text for text, _ in pairs]
    base = base_url.rstrip("/")
    headers = {"authorization": f"Bearer {api_key or 'bench'}"}
    timeout = aiohttp.ClientTimeout(total=1800)
    async with aiohttp.ClientSession(headers=headers, timeout=timeout) as session:
        async with session.get(f"{base}/v1/models") as response:
            model = (await response.json())["data"][0]["id"]
        before = await _before(session, base, model, task, texts)
        after = await _after(session, base, task, texts)
    return {
        "model": model,
        "task": task,
        "sentences": len(pairs),
        "before": judged(task, pairs, before),
        "after": judged(task, pairs, after),
    }


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "write",
        help="DeepL Write: share of answers that are rewrites, before and after its guard",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--base-url", default="http://127.0.0.1:8000")
    parser.add_argument("--api-key", default=None)
    parser.add_argument("--task", choices=TASKS, default="rephrase")
    parser.add_argument("--output", type=Path, help="also write the report (JSON) here")
    parser.set_defaults(handler=cmd_write)


def cmd_write(args: argparse.Namespace) -> int:
    report = asyncio.run(run(args.base_url, args.task, args.api_key))
    text = json.dumps(report, indent=2)
    print(text)
    if args.output is not None:
        args.output.write_text(text + "\n")
    return 0
