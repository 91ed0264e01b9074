"""Multi-line texts through a base model's completion prompt: each line on its own (what the
service does) against the whole text in one prompt, its line breaks kept and the answer
stopped at the next source label.

    PYTHONPATH=src python bench/completion_lines.py [--model google/gemma-3-270m] [--texts 12]

Texts are two or three corpus sentences, one per line, into German, French and Japanese.
Per way: answers with as many lines as the source, lines in the target language (Lingua),
lines that are the source line unchanged, prompt and output tokens, and wall time (all
requests of one way at once).
"""

from __future__ import annotations

import argparse
import asyncio
import time

from translate_server.inference.engine import SamplingOptions
from translate_server.inference.engine.vllm_engine import create_vllm_engine
from translate_server.loadgen.corpus import SENTENCES
from translate_server.settings import EngineSettings
from translate_server.text.detection import LanguageDetection
from translate_server.text.languages import resolve_language
from translate_server.translation.prompts.completion import completion_prompt
from translate_server.translation.prompts.templates import PromptTemplates

TARGETS = ("de", "fr", "ja")


async def run(engine, prompt: str, stop: tuple[str, ...], rid: str) -> tuple[str, int, int]:
    ids = engine.tokenize_text(prompt)
    options = SamplingOptions(max_tokens=160, temperature=0.0, stop=stop)
    text, count = "", 0
    async for output in engine.generate(ids, options, rid):
        for step in output.steps:
            text += step.text
            count = step.completion_tokens
    return text.strip(), len(ids), count


def whole_prompt(text: str, source, target, template) -> str:
    # The same examples; the text's own line breaks kept inside its pair.
    head = completion_prompt(
        "X", source, target, prefix=template.prefix, examples=template.examples
    )
    return head.rsplit("\n", 2)[0] + f"\n{source.name}: {text}\n{target.name}:"


async def main(args: argparse.Namespace) -> None:
    engine = create_vllm_engine(
        EngineSettings(
            model=args.model,
            max_model_len=2048,
            kv_cache_gib=0.5,
            model_cache_dir=args.model_cache_dir,
        )
    )
    try:
        template = PromptTemplates.load().for_model(args.model)
        source = resolve_language("en")
        detector = LanguageDetection()
        sentences = [s for s in SENTENCES["en"] if len(s) < 90]
        cases = []
        for i in range(args.texts):
            lines = [sentences[(3 * i + k) % len(sentences)] for k in range(2 + i % 2)]
            cases.append(("\n".join(lines), resolve_language(TARGETS[i % len(TARGETS)])))
        for way in ("line by line", "whole text"):
            started = time.perf_counter()
            jobs = []
            for i, (text, target) in enumerate(cases):
                if way == "line by line":
                    jobs.append(
                        asyncio.gather(
                            *(
                                run(
                                    engine,
                                    completion_prompt(
                                        line,
                                        source,
                                        target,
                                        prefix=template.prefix,
                                        examples=template.examples,
                                    ),
                                    ("\n",),
                                    f"l{i}-{k}",
                                )
                                for k, line in enumerate(text.split("\n"))
                            )
                        )
                    )
                else:
                    jobs.append(
                        asyncio.gather(
                            run(
                                engine,
                                whole_prompt(text, source, target, template),
                                (f"\n{source.name}:",),
                                f"w{i}",
                            )
                        )
                    )
            results = await asyncio.gather(*jobs)
            wall = time.perf_counter() - started
            same_lines = right_language = echoed = total_lines = prompt_t = output_t = 0
            for (text, target), parts in zip(cases, results, strict=True):
                answer = "\n".join(part[0] for part in parts)
                prompt_t += sum(part[1] for part in parts)
                output_t += sum(part[2] for part in parts)
                source_lines = text.split("\n")
                answer_lines = [line for line in answer.split("\n") if line.strip()]
                total_lines += len(source_lines)
                same_lines += len(answer_lines) == len(source_lines)
                for line in answer_lines:
                    found = detector.candidates(line, 1)
                    right_language += bool(found) and found[0].language.tag == target.tag
                    echoed += line.strip() in source_lines
                if args.show:
                    print(f"--- {way} -> {target.tag}\n{answer}")
            print(
                f"{way:13} same line count {same_lines}/{len(cases)}  lines in the target "
                f"language {right_language}/{total_lines}  echoed lines {echoed}  "
                f"tokens in/out {prompt_t}/{output_t}  {wall:.1f} s",
                flush=True,
            )
    finally:
        engine.shutdown()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", default="google/gemma-3-270m")
    parser.add_argument("--model-cache-dir", default=EngineSettings().model_cache_dir)
    parser.add_argument("--texts", type=int, default=12)
    parser.add_argument("--show", action="store_true")
    asyncio.run(main(parser.parse_args()))
