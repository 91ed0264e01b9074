"""`translate-server bench languages`: which target languages the served model really writes.

A small model asked for a language it cannot write answers in another (English, usually).
For every language that Django's catalogs are translated into and the language detector
knows, English sentences from those catalogs are sent through `/translate`; an answer is in
the right language when it is not empty, not the source sent back, and the detector does not
call it another language (`checks.LanguageJudge`, high accuracy). The level:

- `supported`: at least `SUPPORTED_RIGHT` of the answers in the right language and chrF at
  least `SUPPORTED_CHRF`;
- `weak`: at least `WEAK_RIGHT` in the right language and chrF at least `WEAK_CHRF` (an
  answer in the right script that says nothing of the source is not writing the language);
- `unsupported`: the rest.

It prints a table and, with `--toml`, the `[<family>.support]` table that the model's family
holds in `translation/prompts/templates.toml` (or in a `--prompt-templates` file).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.resources
import random
from collections.abc import Sequence
from dataclasses import dataclass

from translate_server.quality.client import translate_all
from translate_server.quality.datasets import CATALOG_DIRS, DOMAINS, Segment, _usable, kind_of

SUPPORTED_RIGHT, SUPPORTED_CHRF, WEAK_RIGHT, WEAK_CHRF = 0.9, 30.0, 0.6, 10.0
MIN_SENTENCES = 8  # a language with fewer usable sentences in its catalogs is not measured
LEVELS = ("supported", "weak", "unsupported")


@dataclass(frozen=True, slots=True)
class LanguageResult:
    tag: str
    sentences: int
    right: float  # share of answers in the right language
    chrf: float
    level: str


def level_of(right: float, chrf: float) -> str:
    if right >= SUPPORTED_RIGHT and chrf >= SUPPORTED_CHRF:
        return "supported"
    return "weak" if right >= WEAK_RIGHT and chrf >= WEAK_CHRF else "unsupported"


def _locales() -> dict[str, str]:
    """Language tag -> Django locale, for the languages the detector knows."""
    from translate_server.text.detection import detectable_languages

    known = {language.tag for language in detectable_languages()} - {"en"}
    root = importlib.resources.files("django").joinpath("conf", "locale")
    locales = {}
    for path in sorted(p.name for p in root.iterdir() if p.is_dir()):
        tag = {"zh_Hans": "zh-Hans", "nb": "nb"}.get(path, path)
        if tag.split("-")[0] in known and "_" not in path.replace("zh_Hans", "zh"):
            locales[tag] = path
    return locales


def sentences(locale: str, tag: str, count: int, seed: int) -> list[Segment]:
    """Up to `count` full sentences of Django's catalogs and their translations into `tag`."""
    import polib

    root = importlib.resources.files("django")
    found = []
    for directory in CATALOG_DIRS:
        for domain in DOMAINS:
            relative = f"{directory}/{locale}/LC_MESSAGES/{domain}.po"
            path = root.joinpath(*relative.split("/"))
            if not path.is_file():
                continue
            for n, entry in enumerate(polib.pofile(path.read_text(encoding="utf-8"))):
                if _usable(entry) and kind_of(entry.msgid) == "sentence":
                    found.append(
                        Segment(
                            id=f"{relative}#{n}",
                            source=entry.msgid,
                            reference=entry.msgstr,
                            source_lang="en",
                            target_lang=tag,
                            kind="sentence",
                        )
                    )
    random.Random(seed).shuffle(found)
    return found[:count]


async def measure(
    base_url: str, count: int, seed: int, concurrency: int, languages: Sequence[str] | None
) -> list[LanguageResult]:
    import sacrebleu

    from translate_server.text.detection import LanguageDetection
    from translate_server.translation.guard.checks import LanguageJudge, is_echo

    judge = LanguageJudge(LanguageDetection(accuracy="high"), "high")
    sets = {
        tag: sentences(locale, tag, count, seed)
        for tag, locale in _locales().items()
        if not languages or tag in languages
    }
    sets = {tag: segments for tag, segments in sets.items() if len(segments) >= MIN_SENTENCES}
    # Every language at once: the engine batches them as it would any traffic.
    every = [segment for segments in sets.values() for segment in segments]
    answers = dict(
        zip(
            (s.id + s.target_lang for s in every),
            await translate_all(base_url, "translate", every, concurrency=concurrency),
            strict=True,
        )
    )
    results = []
    for tag, segments in sets.items():
        texts = [answers[s.id + s.target_lang].text for s in segments]
        right = sum(
            bool(text.strip())
            and not is_echo(s.source, text)
            and judge.wrong_language(text, tag) is None
            for s, text in zip(segments, texts, strict=True)
        ) / len(segments)
        chrf = sacrebleu.CHRF().corpus_score(texts, [[s.reference for s in segments]]).score
        results.append(
            LanguageResult(tag, len(segments), right, round(chrf, 1), level_of(right, chrf))
        )
    return results


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "languages",
        help="which target languages the served model writes (support levels)",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    parser.add_argument("--base-url", default="http://127.0.0.1:8000")
    parser.add_argument("--sentences", type=int, default=12, help="per language (default 12)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--languages", default="", help="comma-separated tags (default: all)")
    parser.add_argument(
        "--toml",
        metavar="FAMILY",
        default=None,
        help="also print the [FAMILY.support] table for the prompt templates "
        "(translation/prompts/templates.toml, or a --prompt-templates file)",
    )
    parser.set_defaults(handler=cmd_languages)


def cmd_languages(args: argparse.Namespace) -> int:
    wanted = [tag for tag in args.languages.split(",") if tag] or None
    results = asyncio.run(
        measure(args.base_url, args.sentences, args.seed, args.concurrency, wanted)
    )
    print(f"{'language':8} {'n':>3} {'right':>6} {'chrF':>5} level")
    for r in results:
        print(f"{r.tag:8} {r.sentences:3} {r.right:6.1%} {r.chrf:5.1f} {r.level}")
    for level in LEVELS:
        print(f"{level}: {', '.join(r.tag for r in results if r.level == level) or '-'}")
    if args.toml:
        print(f"\n[{args.toml}.support]")
        for r in results:
            print(
                f'"{r.tag}" = {{ level = "{r.level}", right = {r.right:.2f}, '
                f"chrf = {r.chrf}, sentences = {r.sentences} }}"
            )
    return 0
